import { describe, expect, it } from "vitest";
import type { Attributes } from "../../src/telemetry/otel.js";
import { AnswerFacts, addRequestAttributes, wireIndex } from "../../src/telemetry/wire.js";

const requestAttributes = (body: Record<string, unknown>): Attributes => {
  const into: Attributes = {};
  addRequestAttributes(body, into);
  return into;
};

describe("addRequestAttributes", () => {
  it("records the parameters a body sets, under the conventions' names, and nothing else", () => {
    expect(
      requestAttributes({
        model: "m",
        messages: [{ role: "user", content: "secret" }],
        stream: true,
        max_tokens: 64,
        temperature: 0.2,
        top_p: 0.9,
        top_k: 40,
        frequency_penalty: 0.1,
        presence_penalty: 0.3,
        seed: 7,
        n: 2,
        stop: ["END", 3, "STOP"],
        response_format: { type: "json_schema" },
        dimensions: 256,
        encoding_format: "base64",
      }),
    ).toEqual({
      "gen_ai.request.max_tokens": 64,
      "gen_ai.request.temperature": 0.2,
      "gen_ai.request.top_p": 0.9,
      "gen_ai.request.top_k": 40,
      "gen_ai.request.frequency_penalty": 0.1,
      "gen_ai.request.presence_penalty": 0.3,
      "gen_ai.request.seed": 7,
      "gen_ai.request.choice.count": 2,
      "gen_ai.request.stop_sequences": ["END", "STOP"],
      "gen_ai.output.type": "json",
      "gen_ai.embeddings.dimension.count": 256,
      "gen_ai.request.encoding_formats": ["base64"],
    });
  });

  it("takes max_tokens over max_completion_tokens, whichever comes first in the body", () => {
    const tokens = "gen_ai.request.max_tokens";
    expect(requestAttributes({ max_tokens: 1, max_completion_tokens: 2 })[tokens]).toBe(1);
    expect(requestAttributes({ max_completion_tokens: 2, max_tokens: 1 })[tokens]).toBe(1);
    expect(requestAttributes({ max_completion_tokens: 2 })[tokens]).toBe(2);
  });

  it("skips values of the wrong type, n of 1, empty stops and unknown formats", () => {
    expect(
      requestAttributes({
        max_tokens: "64",
        temperature: Number.NaN,
        seed: null,
        n: 1,
        stop: [],
        response_format: { type: "xml" },
        encoding_format: 1,
      }),
    ).toEqual({});
    expect(requestAttributes({ stop: "END", response_format: { type: "text" } })).toEqual({
      "gen_ai.request.stop_sequences": ["END"],
      "gen_ai.output.type": "text",
    });
  });

  it("reads only a body's own keys: names of Object's prototype are not parameters", () => {
    const body = JSON.parse('{"constructor": 1, "toString": 2, "__proto__": {"seed": 3}}');
    expect(requestAttributes(body)).toEqual({});
  });
});

describe("AnswerFacts", () => {
  it("gathers a stream's ID, model, finish reasons by choice index, and its usage", () => {
    const facts = new AnswerFacts();
    facts.read({ id: "a", model: "m", choices: [{ index: 1, delta: {} }, null] });
    facts.read({ id: "b", model: "n", choices: [{ index: 1, finish_reason: "length" }] });
    facts.read({ choices: [{ finish_reason: "stop" }] });
    facts.read({
      choices: [],
      usage: {
        prompt_tokens: 9,
        completion_tokens: 3,
        completion_tokens_details: { reasoning_tokens: 2 },
      },
    });
    facts.read("not an object");
    const into: Attributes = {};
    facts.addTo(into);
    expect(into).toEqual({
      "gen_ai.response.id": "a",
      "gen_ai.response.model": "m",
      "gen_ai.response.finish_reasons": ["stop", "length"],
      "gen_ai.usage.input_tokens": 9,
      "gen_ai.usage.output_tokens": 3,
      "gen_ai.usage.reasoning.output_tokens": 2,
    });
  });

  it("counts the prompt's cache reads and writes from every field the gateway writes them in", () => {
    const written = (usage: Record<string, unknown>) => {
      const facts = new AnswerFacts();
      facts.read({ usage: { prompt_tokens: 100, completion_tokens: 1, ...usage } });
      const into: Attributes = {};
      facts.addTo(into);
      return [
        into["gen_ai.usage.cache_read.input_tokens"],
        into["gen_ai.usage.cache_creation.input_tokens"],
      ];
    };
    expect(
      written({
        prompt_tokens_details: { cached_tokens: 10, cached_creation_tokens: 30 },
        claude_cache_creation_5_m_tokens: 10,
        claude_cache_creation_1_h_tokens: 20,
      }),
    ).toEqual([10, 30]);
    expect(written({ prompt_tokens_details: { cache_write_tokens: 7 } })).toEqual([undefined, 7]);
    expect(written({})).toEqual([undefined, undefined]);
  });
});

describe("the indexes the wire numbers choices by", () => {
  it("are used when whole and below 128; else the choice's place in the list is", () => {
    expect(wireIndex(3, 0)).toBe(3);
    expect(wireIndex(127, 0)).toBe(127);
    for (const index of [128, 1e9, -1, 1.5, "2", null, undefined, Number.NaN]) {
      expect(wireIndex(index, 1)).toBe(1);
    }
  });

  it("an index of 1e9 makes no billion-long list of finish reasons", () => {
    const facts = new AnswerFacts();
    facts.read({ choices: [{ index: 1e9, finish_reason: "stop" }] });
    expect(facts.finishReasons).toEqual(["stop"]);
  });
});
