import { describe, expect, it } from "vitest";
import type { EmulatorRequest, EmulatorResponse } from "../../../src/emulator/reply.js";
import {
  REQUEST_DETAILS_KEPT,
  RequestDetails,
} from "../../../src/emulator/state/request_details.js";

const request = (url: string, headers: Record<string, string>, body = ""): EmulatorRequest => ({
  method: "POST",
  url,
  headers,
  body,
});

const reply = (body: string): EmulatorResponse => ({
  kind: "response",
  status: 200,
  headers: { "Content-Type": "application/json" },
  body,
  abort: false,
  delayMs: 0,
});

describe("RequestDetails", () => {
  it("shows nothing of a short credential, and the last 4 characters of a long one", () => {
    const details = new RequestDetails();
    details.add(
      "r1",
      request("/x?access_token=abc123&Api_Key=sk-long-enough-secret&q=1", {
        authorization: "Basic dXNlcjpw",
        cookie: "session=abcdefgh12345",
      }),
      reply("{}"),
      performance.now(),
    );
    const { request: shown } = details.get("r1", [])!;
    expect(shown.url).toBe("/x?access_token=****&Api_Key=****cret&q=1");
    expect(shown.headers).toEqual({ authorization: "Basic ****", cookie: "****2345" });
  });

  it("masks the keys the emulator holds wherever they appear, the longest first", () => {
    const details = new RequestDetails();
    details.add(
      "r1",
      request("/x", {}, "sk-key-one and sk-key-one-longer"),
      reply("sk-key-one"),
      0,
    );
    const shown = details.get("r1", ["sk-key-one", "sk-key-one-longer"])!;
    expect(shown.request.body.text).toBe("****-one and ****nger");
    expect(shown.response!.body.text).toBe("****-one");
  });

  it(`keeps the newest ${REQUEST_DETAILS_KEPT} calls, a call noted again counting as new`, () => {
    const details = new RequestDetails();
    for (let i = 0; i <= REQUEST_DETAILS_KEPT; i++) {
      details.add(`r${i}`, request("/x", {}), reply("{}"), 0);
      if (i === 0) details.add("r0", request("/x", {}), reply("{}"), 0);
    }
    expect(details.get("r0", [])).toBeUndefined();
    expect(details.get("r1", [])).toBeDefined();
    details.add("r1", request("/x", {}), reply("{}"), 0);
    details.add("r-new", request("/x", {}), reply("{}"), 0);
    expect(details.get("r1", [])).toBeDefined();
    expect(details.get("r2", [])).toBeUndefined();
  });
});
