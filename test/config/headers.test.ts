import nock from "nock";
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { ChatInferenceService } from "../../src/apis/chat/chat_models.js";
import { DedicatedEndpointLLM } from "../../src/apis/completions/llms.js";
import { InferenceServiceEmbeddings } from "../../src/apis/embeddings/embeddings.js";
import { InferenceServiceRerank } from "../../src/apis/rerank/rerank.js";
import { resolveApiKey } from "../../src/config/api_key.js";
import { badCharacter, checkHeaders } from "../../src/config/headers.js";
import { configurationError } from "../helpers/errors.js";
import { BASE, chatCompletion, intercept, JSON_HEADERS, KEY } from "../helpers/wire.js";

const CHAT = "/inference/v1/chat/completions";
const SECRET = "sk-live-0123456789abcdef";

beforeAll(() => nock.disableNetConnect());
beforeEach(() => {
  vi.stubEnv("INFERENCE_SERVICE_API_KEY", "");
  vi.stubEnv("INFERENCE_SERVICE_BASE_URL", "");
});
afterEach(() => {
  nock.cleanAll();
  vi.unstubAllEnvs();
});

/** `SECRET` with `character` put in at `index` (from 0). */
function keyWith(character: string, index: number): string {
  return `${SECRET.slice(0, index)}${character}${SECRET.slice(index)}`;
}

describe("badCharacter", () => {
  it("finds the first refused character by position from 1, counts the others, and names invisible ones by code point only", () => {
    const visible = /^[\x21-\x7e]$/u;
    expect(badCharacter("abc", visible)).toBeUndefined();
    expect(badCharacter("ab\u200bc\u200b", visible)).toEqual({
      position: 3,
      what: "a zero-width space (U+200B)",
      more: 1,
    });
    // Positions count characters, not UTF-16 units: the emoji before is one character.
    expect(badCharacter("😀!", /^[^!]$/u)).toMatchObject({ position: 2 });
    expect(badCharacter("a\x7f", visible)?.what).toBe("a control character (U+007F)");
    expect(badCharacter("a\u2003", visible)?.what).toBe("a space character (U+2003)");
    expect(badCharacter("a\u2066", visible)?.what).toBe("an invisible character (U+2066)");
    // A visible character is part of what the user typed: it is not shown.
    expect(badCharacter("aé", visible)?.what).toBe("a non-ASCII character");
  });
});

describe("resolveApiKey: keys an Authorization header cannot carry", () => {
  it.each([
    ["a zero-width space", "\u200b", "a zero-width space (U+200B)"],
    ["a control character", "\x01", "a control character (U+0001)"],
    ["a line break", "\n", "a line break (U+000A)"],
    ["a no-break space", "\u00a0", "a no-break space (U+00A0)"],
    ["a byte order mark", "\ufeff", "a byte order mark (U+FEFF)"],
    ["a space", " ", "a space (U+0020)"],
    ["a character beyond Latin-1", "€", "a non-ASCII character"],
  ])("refuses %s, naming its position and never the key", (_name, character, what) => {
    const error = configurationError(() => resolveApiKey(keyWith(character, 10)));
    expect(error).toMatchObject({ option: "apiKey", envVar: "INFERENCE_SERVICE_API_KEY" });
    expect(error.message).toContain(`has ${what} at character 11 of the key`);
    for (const piece of [SECRET.slice(0, 10), SECRET.slice(10), SECRET.slice(6, 14)]) {
      expect(error.message).not.toContain(piece);
    }
  });

  it("names the env variable, the position in the trimmed key, and how many more follow", () => {
    vi.stubEnv("INFERENCE_SERVICE_API_KEY", `  ${keyWith("\u200b", 3)}\u200b\n`);
    const error = configurationError(() => resolveApiKey(undefined));
    expect(error.option).toBe("INFERENCE_SERVICE_API_KEY");
    expect(error.message).toMatch(
      /^`INFERENCE_SERVICE_API_KEY` has a zero-width space \(U\+200B\) at character 4 of the key \(and 1 more after it\): an API key/,
    );
  });

  it("says OPENAI_* variables are not read when no key is found", () => {
    vi.stubEnv("OPENAI_API_KEY", "sk-openai");
    expect(configurationError(() => resolveApiKey(undefined)).message).toBe(
      "Inference service API key not found. Pass `apiKey` or set INFERENCE_SERVICE_API_KEY (OPENAI_API_KEY and the other OPENAI_* variables are not read).",
    );
  });

  it("refuses the key before any request, on every class, wherever it is given", () => {
    const seen = intercept(CHAT, [200, chatCompletion({ content: "ok" }), JSON_HEADERS]);
    const bad = keyWith("\u200b", 5);
    const builds = [
      () => new ChatInferenceService("m", { apiKey: bad, baseURL: BASE }),
      () => new ChatInferenceService("m", { configuration: { apiKey: bad }, baseURL: BASE }),
      () => new ChatInferenceService("m", { openAIApiKey: bad, baseURL: BASE }),
      () => new DedicatedEndpointLLM({ serviceName: "t.a", apiKey: bad, baseURL: BASE }),
      () => new InferenceServiceEmbeddings({ model: "e", apiKey: bad, baseURL: BASE }),
      () => new InferenceServiceRerank({ model: "r", apiKey: bad, baseURL: BASE }),
    ];
    for (const build of builds) {
      expect(configurationError(build).message).toContain("at character 6 of the key");
    }
    expect(seen).toHaveLength(0);
  });
});

describe("checkHeaders: header values the package sends", () => {
  it("passes names that are tokens and values a header carries, null and lists included", () => {
    const headers = { "X-Trace": "a b\tc é", "X-Gone": null, "X-List": ["1", "2"] };
    expect(checkHeaders(headers, "o")).toBe(headers);
    expect(checkHeaders(undefined, "o")).toBeUndefined();
    expect(checkHeaders(new Headers({ "X-A": "1" }), "o")).toBeInstanceOf(Headers);
  });

  it.each([
    [
      { "X-Trace": "qqq\u200bzzz" },
      'header "X-Trace" has a zero-width space (U+200B) at character 4',
    ],
    [[["X-Trace", "qqq\rzzz"]], 'header "X-Trace" has a line break (U+000D) at character 4'],
    [
      { "X-Trace": ["ok", "qq\x01"] },
      'header "X-Trace" has a control character (U+0001) at character 3',
    ],
    [{ "X Trace": "v" }, 'has a header name that is not a valid HTTP header name: "X Trace"'],
    [
      { "X-Trace": { v: 1 } },
      'header "X-Trace" must be a string (or null to leave the header out); got an object',
    ],
  ])("refuses %j without showing the value", (headers, message) => {
    const error = configurationError(() => checkHeaders(headers, "configuration.defaultHeaders"));
    expect(error.option).toBe("configuration.defaultHeaders");
    expect(error.message).toContain(`\`configuration.defaultHeaders\` ${message}`);
    expect(error.message).not.toMatch(/qqq|zzz/);
  });

  it("refuses a chat model's defaultHeaders up front, and sends nothing", () => {
    const seen = intercept(CHAT, [200, chatCompletion({ content: "ok" }), JSON_HEADERS]);
    const error = configurationError(
      () =>
        new ChatInferenceService("m", {
          apiKey: KEY,
          baseURL: BASE,
          configuration: { defaultHeaders: { "X-Org-Token": "tok\u200ben-1234" } },
        }),
    );
    expect(error.message).toMatch(
      /^`configuration\.defaultHeaders` header "X-Org-Token" has a zero-width space \(U\+200B\) at character 4 of its value/,
    );
    expect(seen).toHaveLength(0);
  });

  it("refuses a call's options.headers with a ConfigurationError before the request, never retried", async () => {
    const seen = intercept(CHAT, [200, chatCompletion({ content: "ok" }), JSON_HEADERS]);
    const chat = new ChatInferenceService("m", { apiKey: KEY, baseURL: BASE, maxRetries: 3 });
    for (const value of ["tok\u200ben-1234", "tok\x01en-1234", "tok\nen-1234"]) {
      const call = chat.invoke("hi", { options: { headers: { "X-Org-Token": value } } });
      const error = await call.then(
        () => undefined,
        (thrown: unknown) => thrown,
      );
      expect(
        configurationError(() => {
          throw error;
        }),
      ).toMatchObject({ option: "options.headers" });
      expect(String((error as Error).message)).not.toContain("en-1234");
    }
    expect(seen).toHaveLength(0);
  });
});
