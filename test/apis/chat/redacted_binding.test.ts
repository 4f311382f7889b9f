import { inspect } from "node:util";
import { load } from "@langchain/core/load";
import { RunnableBinding } from "@langchain/core/runnables";
import { describe, expect, it } from "vitest";
import { RedactedBinding } from "../../../src/apis/chat/redacted_binding.js";
import { ChatInferenceService } from "../../../src/index.js";

const KEY = "sk-binding-key-0001";
const VALUE = "hdr-per-call-77aa";
const model = new ChatInferenceService("m", { apiKey: KEY, baseURL: "https://svc.test" });
const bound = model.withConfig({ options: { headers: { "X-Call-Token": VALUE } }, tags: ["t"] });

describe("RedactedBinding", () => {
  it("is what withConfig returns, and stays one when configured again", () => {
    expect(bound).toBeInstanceOf(RedactedBinding);
    expect(bound).toBeInstanceOf(RunnableBinding);
    expect(bound.withConfig({ metadata: { a: 1 } })).toBeInstanceOf(RedactedBinding);
  });

  it("serialises and prints per-call header values as [redacted]", () => {
    const json = JSON.stringify(bound);
    expect(json).not.toContain(VALUE);
    expect(JSON.parse(json).kwargs.config.options.headers).toEqual({
      "X-Call-Token": "[redacted]",
    });
    expect(JSON.parse(json).id).toEqual(["langchain_core", "runnables", "RunnableBinding"]);
    const printed = inspect(bound, { depth: 10 });
    expect(printed).not.toContain(VALUE);
    expect(printed).not.toContain(KEY);
    expect(printed).toContain("[redacted]");
  });

  it("loads back as a binding of the model, the key from the secrets map", async () => {
    const loaded = await load<RunnableBinding<unknown, unknown>>(JSON.stringify(bound), {
      secretsMap: { INFERENCE_SERVICE_API_KEY: KEY },
      optionalImportsMap: { "langchain_inference_service/chat_models": { ChatInferenceService } },
    });
    expect(loaded).toBeInstanceOf(RunnableBinding);
    expect((loaded.bound as ChatInferenceService).model).toBe("m");
  });
});
