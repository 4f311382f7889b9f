/**
 * @module What the tests of the answer checks share: what a check throws, and the
 * `MalformedResponseError` of a 200 answer.
 */
import { expect } from "vitest";
import { MalformedResponseError } from "../../src/errors/errors.js";

/** What `run` throws (undefined if it returns). */
export function thrownBy(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  return undefined;
}

/** `error` is the MalformedResponseError of a 200 answer with `requestId`, its summary saying `detail`. */
export function expectMalformed(error: unknown, requestId: string, detail: string): void {
  expect(MalformedResponseError.isInstance(error), String(error)).toBe(true);
  expect(error).toMatchObject({ requestId, status: 200, retryable: false });
  expect((error as MalformedResponseError).summary).toContain(detail);
}
