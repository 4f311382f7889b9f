import { describe, expect, it } from "vitest";
import { checkResponse, ResponsesWatch } from "../../../src/apis/responses/answer.js";
import {
  BadRequestError,
  MalformedResponseError,
  RateLimitError,
  ServiceUnavailableError,
} from "../../../src/errors/errors.js";

const ctx = { surface: "hosted" as const, model: "m", api: "responses" as const };
const headers = new Headers({ "X-Gateway-Request-Id": "rid" });

describe("checkResponse", () => {
  it("passes a response with output, or an incomplete one without", () => {
    const ok = { object: "response", status: "completed", output: [{ type: "message" }] };
    expect(checkResponse(ok, headers, ctx)).toBe(ok);
    const cut = { object: "response", status: "incomplete", output: [] };
    expect(checkResponse(cut, headers, ctx)).toBe(cut);
  });

  it.each([
    [{ object: "response", status: "completed", output: [] }, MalformedResponseError],
    [{ choices: [] }, MalformedResponseError],
    [
      { status: "failed", output: [], error: { code: "server_error", message: "x" } },
      ServiceUnavailableError,
    ],
    [
      { status: "failed", output: [], error: { code: "rate_limit_exceeded", message: "x" } },
      RateLimitError,
    ],
    [
      { status: "failed", output: [], error: { code: "invalid_prompt", message: "x" } },
      BadRequestError,
    ],
  ])("refuses %j as %s, with the request ID", (data, cls) => {
    expect(() => checkResponse(data, headers, ctx)).toThrow(
      expect.objectContaining({ name: cls.name, requestId: "rid" }),
    );
  });
});

describe("ResponsesWatch", () => {
  it("reads the output so far, the terminal event, and a failure", () => {
    const watch = new ResponsesWatch();
    expect(watch.unanswered()).toBe("the stream ended without any event");
    watch.see({ type: "response.created" } as never);
    expect(watch.unanswered()).toMatch(/carried no output item/);
    watch.see({ type: "response.output_text.delta", delta: "Hel" } as never);
    watch.see({ type: "response.function_call_arguments.delta", delta: "{}" } as never);
    expect(watch.partialOutput).toBe("Hel{}");
    expect(watch.finished).toBe(false);
    expect(
      watch.see({ type: "response.completed", response: { output: [] } } as never),
    ).toBeUndefined();
    expect(watch.finished).toBe(true);
    expect(watch.unanswered()).toBeUndefined();
    const failed = watch.see({
      type: "response.failed",
      response: { error: { code: "server_error", message: "x" } },
    } as never);
    expect(failed).toEqual({ error: { code: "server_error", message: "x", status: 500 } });
  });
});
