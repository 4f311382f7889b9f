import { describe, expect, it } from "vitest";
import {
  requestMetaOf,
  streamMeta,
  tagChunk,
  tagResponse,
} from "../../src/transport/response_meta.js";

const headers = new Headers({ "X-Gateway-Request-Id": " rid-7 " });

describe("response metadata", () => {
  it("records the request ID header and the model of a response, without changing it", () => {
    const data = { model: "m-1", choices: [] };
    expect(tagResponse(data, headers)).toBe(data);
    expect(data).toEqual({ model: "m-1", choices: [] });
    expect(requestMetaOf(data)).toEqual({ requestId: "rid-7", model: "m-1", announced: false });
  });

  it("has nothing for an object it never saw, or a non-object", () => {
    expect(requestMetaOf({})).toBeUndefined();
    expect(requestMetaOf(undefined)).toBeUndefined();
    expect(requestMetaOf("text")).toBeUndefined();
  });

  it("shares one record between a stream's chunks, taking the model from the first that has one", () => {
    const meta = streamMeta(new Headers());
    const [a, b] = [{ choices: [] }, { model: "m-2" }];
    tagChunk(meta, a);
    tagChunk(meta, b);
    tagChunk(meta, { model: "m-3" });
    expect(requestMetaOf(a)).toBe(meta);
    expect(requestMetaOf(b)).toBe(meta);
    expect(meta).toEqual({ requestId: undefined, model: "m-2", announced: false });
  });
});
