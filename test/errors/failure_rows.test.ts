import { describe, expect, it } from "vitest";
import { MalformedResponseError } from "../../src/errors/errors.js";
import { type FailureFacts, failureRow } from "../../src/errors/failure_rows.js";

const facts: FailureFacts = {
  kind: "malformed",
  surface: "hosted",
  midStream: false,
  afterResponse: false,
  notReady: false,
  idle: false,
  began: false,
  crossOrigin: false,
};

describe("failureRow", () => {
  it("finds the row of a failure by every fact its match names", () => {
    expect(failureRow(facts).cls).toBe(MalformedResponseError);
    expect(failureRow({ ...facts, kind: "timeout", idle: true }).code).toBe("idle_timeout");
    expect(failureRow({ ...facts, kind: "timeout", began: true }).summary).toMatch(
      /^The response began/,
    );
  });

  it("refuses a failure of a kind the table has no row for, naming the kind", () => {
    expect(() => failureRow({ ...facts, kind: "unheard-of" as never })).toThrow(
      "no row for a failure of kind unheard-of",
    );
  });
});
