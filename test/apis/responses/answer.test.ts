import { describe, expect, it } from "vitest";
import { checkResponse, ResponsesWatch } from "../../../src/apis/responses/answer.js";
import {
  BadRequestError,
  RateLimitError,
  ServiceUnavailableError,
} from "../../../src/errors/errors.js";
import { expectMalformed, thrownBy } from "../../helpers/answer_checks.js";

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
    [null, "the JSON body is not a response with an `output` array"],
    [{ choices: [] }, "the JSON body is not a response with an `output` array"],
    [{ object: "response", output: "x" }, "the JSON body is not a response with an `output` array"],
    [{ object: "response", status: "completed", output: [] }, "the response's `output` is empty"],
  ])("refuses %j as malformed, saying why, with the request ID", (data, detail) => {
    expectMalformed(
      thrownBy(() => checkResponse(data, headers, ctx)),
      "rid",
      detail,
    );
  });

  it.each([
    [{ code: "server_error", message: "x" }, ServiceUnavailableError, 500],
    [{ code: "vector_store_timeout", message: "x" }, ServiceUnavailableError, 500],
    [{ message: "x" }, ServiceUnavailableError, 500],
    [{ code: "rate_limit_exceeded", message: "x" }, RateLimitError, 429],
    [{ code: "invalid_prompt", message: "x" }, BadRequestError, 400],
    [{ code: "invalid_image", message: "x" }, BadRequestError, 400],
  ])(
    "types a failed response's error %j as %s with the status its code implies",
    (error, cls, status) => {
      expect(() => checkResponse({ status: "failed", output: [], error }, headers, ctx)).toThrow(
        expect.objectContaining({ name: cls.name, status, requestId: "rid", serviceMessage: "x" }),
      );
    },
  );

  it.each([
    ["a failed response without an error", { status: "failed", output: [] }, "the response failed"],
    [
      "a failed response whose error is a message",
      { status: "failed", output: [], error: "boom" },
      "boom",
    ],
  ])("types %s as the service's passing failure, with its message", (_label, data, message) => {
    expect(() => checkResponse(data, headers, ctx)).toThrow(
      expect.objectContaining({
        name: "ServiceUnavailableError",
        status: 500,
        serviceMessage: message,
      }),
    );
  });

  it("types a response that carries an error object as that error, whatever its status says", () => {
    const data = {
      status: "completed",
      output: [{ type: "message" }],
      error: { code: "invalid_prompt", message: "x" },
    };
    expect(() => checkResponse(data, headers, ctx)).toThrow(BadRequestError);
  });

  it("types a failed response in the call's context: its surface, and its secrets kept out", () => {
    const error = thrownBy(() =>
      checkResponse(
        {
          status: "failed",
          output: [],
          error: { code: "server_error", message: "upstream refused key sk-secret-77" },
        },
        headers,
        { ...ctx, secrets: ["sk-secret-77"] },
      ),
    );
    expect(error).toMatchObject({ surface: "hosted", requestId: "rid" });
    expect((error as ServiceUnavailableError).serviceMessage).not.toContain("sk-secret-77");
    expect((error as ServiceUnavailableError).message).not.toContain("sk-secret-77");
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

  it("counts a text event as an answer but adds to the output only a text delta", () => {
    const watch = new ResponsesWatch();
    watch.see({ type: "response.refusal.delta" } as never);
    watch.see({ type: "response.output_text.delta", delta: 3 } as never);
    expect(watch.partialOutput).toBe("");
    expect(watch.unanswered()).toBeUndefined();
  });

  it("counts an output item as an answer before any text, though the stream has not finished", () => {
    const watch = new ResponsesWatch();
    watch.see({ type: "response.output_item.added", item: { type: "message" } } as never);
    expect(watch.unanswered()).toBeUndefined();
    expect(watch.finished).toBe(false);
  });

  it.each([
    [
      "a completed response with output",
      "response.completed",
      { output: [{ type: "message" }] },
      undefined,
    ],
    ["an incomplete response without output", "response.incomplete", { output: [] }, undefined],
    [
      "a completed response without output",
      "response.completed",
      { output: [] },
      "the stream's events carried no output item, text or complete response",
    ],
    [
      "a completed event without its response",
      "response.completed",
      undefined,
      "the stream's events carried no output item, text or complete response",
    ],
  ])(
    "finishes on %s, an answer by itself or not as it says",
    (_label, type, response, unanswered) => {
      const watch = new ResponsesWatch();
      expect(watch.see({ type, response } as never)).toBeUndefined();
      expect(watch.finished).toBe(true);
      expect(watch.unanswered()).toBe(unanswered);
    },
  );

  it("returns the error of an error event or a failed response, and nothing for any other event", () => {
    const watch = new ResponsesWatch();
    for (const type of ["response.created", "response.in_progress", "response.output_text.done"]) {
      expect(watch.see({ type } as never)).toBeUndefined();
    }
    expect(
      watch.see({ type: "error", code: "rate_limit_exceeded", message: "slow" } as never),
    ).toEqual({
      error: { type: "error", code: "rate_limit_exceeded", message: "slow", status: 429 },
    });
    expect(watch.see({ type: "response.failed" } as never)).toEqual({
      error: { message: "the response failed", status: 500 },
    });
  });
});
