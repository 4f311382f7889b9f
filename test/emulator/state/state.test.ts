import { describe, expect, it, vi } from "vitest";
import { PROFILE_FIELDS } from "../../../src/config/profiles.js";
import {
  createEmulator,
  DEFAULT_STATE,
  EmulatorConfigError,
  EmulatorState,
} from "../../../src/emulator/index.js";
import { MAX_CREDIT } from "../../../src/emulator/state/state_config.js";

/** The demo models, in the order the state lists them. */
const DEMO_MODELS = [
  "emulator-chat",
  "emulator-reasoner",
  "emulator-thinker",
  "emulator-r1",
  "emulator-vllm",
  "emulator-think-tags",
  "emulator-think-open",
  "emulator-embedding",
  "emulator-rerank",
];

describe("EmulatorState", () => {
  it("starts from the demo state", () => {
    const state = new EmulatorState();
    expect(state.credit).toBe(DEFAULT_STATE.credit);
    expect(state.listKeys().map((key) => key.secret)).toEqual([
      "sk-emulator-demo",
      "sk-emulator-noperm",
      "sk-emulator-expired",
    ]);
    expect(state.listEndpoints().map((e) => [e.serviceName, e.state, e.scaling])).toEqual([
      ["tenant-demo.demo-endpoint", "Running", "1/1"],
      ["tenant-demo.pending-endpoint", "Pending", "0/1"],
    ]);
    expect(state.listModels().map((m) => m.id)).toEqual(DEMO_MODELS);
  });

  it("replaces only the collections the config gives", () => {
    const state = new EmulatorState({ models: [{ id: "solo" }], credit: 2 });
    expect(state.listModels()).toEqual([
      { id: "solo", prices: { input: 1, output: 1 }, endpointTypes: ["openai"] },
    ]);
    expect(state.credit).toBe(2);
    expect(state.listKeys()).toHaveLength(3);
  });

  it("profiles the demo models with their context windows, for ChatInferenceService's `profiles`", () => {
    const profiles = new EmulatorState().modelProfiles();
    expect(Object.keys(profiles)).toEqual(DEMO_MODELS);
    expect(profiles["emulator-chat"]).toMatchObject({
      maxInputTokens: 32_768,
      maxOutputTokens: 4_096,
      toolCalling: true,
      structuredOutput: true,
      reasoningOutput: false,
    });
    expect(profiles["emulator-reasoner"]).toMatchObject({
      maxInputTokens: 65_536,
      maxOutputTokens: 8_192,
      reasoningOutput: true,
    });
  });

  it("leaves a model configured without a profile out of modelProfiles()", () => {
    const state = new EmulatorState({
      models: [{ id: "plain" }, { id: "small", profile: { maxInputTokens: 1_000 } }],
    });
    expect(state.modelProfiles()).toEqual({ small: { maxInputTokens: 1_000 } });
    expect(state.model("plain")).toEqual({
      id: "plain",
      prices: { input: 1, output: 1 },
      endpointTypes: ["openai"],
    });
  });

  it("refuses a key no Authorization header could carry, naming the character's position, not the key", () => {
    const state = new EmulatorState({ keys: [] });
    for (const [secret, where] of [
      ["sk-\u200bCANARY", "U+200B at character 4"],
      ["sk-CAN ARY", "U+0020 at character 7"],
      ["sk-Cé-CANARY", "U+00E9 at character 5"],
    ] as const) {
      expect(() => state.addKey({ secret })).toThrow(
        expect.objectContaining({ message: expect.stringContaining(`key.secret has ${where}`) }),
      );
      expect(() => state.addKey({ secret })).not.toThrow(/CAN/);
    }
    expect(() => new EmulatorState({ keys: [{ secret: "sk-\u0001" }] })).toThrow(
      /keys\[0\]\.secret has U\+0001 at character 4/,
    );
    expect(state.listKeys()).toEqual([]);
  });

  it("gives added keys the Inference Service permission and fresh IDs by default", () => {
    const state = new EmulatorState({ keys: [] });
    expect(state.addKey({ secret: "sk-a" })).toEqual({
      id: "key-1",
      name: "key-1",
      secret: "sk-a",
      permissions: ["Inference Service"],
      expiresAt: undefined,
    });
    expect(state.addKey({ secret: "sk-b", expiresAt: 5 }).expiresAt).toBe(5);
  });

  it("expires a key at its expiresAt by the configured clock", () => {
    let now = 0;
    const state = new EmulatorState(
      { keys: [{ secret: "sk-x", expiresAt: 100 }] },
      { clock: () => now },
    );
    const key = state.findKey("sk-x")!;
    expect(state.isExpired(key)).toBe(false);
    now = 100;
    expect(state.isExpired(key)).toBe(true);
  });

  it("adds a key without reading the keys it already holds, so each key costs the same", () => {
    const state = new EmulatorState({ keys: [{ secret: "sk-0", id: "key-2" }] });
    const listKeys = vi.spyOn(state, "listKeys");
    for (let i = 1; i <= 100; i++) state.addKey({ secret: `sk-${i}` });
    expect(listKeys).not.toHaveBeenCalled();
    // Fresh IDs still skip the ones taken, and a taken ID is still refused.
    expect(state.findKey("sk-1")?.id).toBe("key-1");
    expect(state.findKey("sk-2")?.id).toBe("key-3");
    expect(() => state.addKey({ secret: "sk-x", id: "key-3" })).toThrow(
      'key.id "key-3" is already in use',
    );
    state.removeKey("key-3");
    expect(state.addKey({ secret: "sk-y", id: "key-3" }).id).toBe("key-3");
  });

  it("keeps at most 256 characters of each text a caller chose in the request log", () => {
    const state = new EmulatorState();
    const long = "m".repeat(2 * 1024 * 1024);
    state.record({
      requestId: "1",
      time: "",
      surface: "hosted",
      model: long,
      serviceName: long,
      fault: long,
      stream: false,
      promptTokens: 0,
      completionTokens: 0,
      totalTokens: 0,
      cost: 0,
      status: 503,
    });
    const entry = state.lastRequest()!;
    for (const text of [entry.model, entry.serviceName, entry.fault]) {
      expect(text).toBe(`${"m".repeat(256)}…`);
    }
    expect(JSON.stringify(state.requests()).length).toBeLessThan(2_000);
  });

  it("refuses a key reference that matches several keys", () => {
    const state = new EmulatorState({
      keys: [{ secret: "sk-one-abcd" }, { secret: "sk-two-abcd" }],
    });
    expect(() => state.removeKey("abcd")).toThrow('key reference "abcd" matches 2 keys');
    expect(state.removeKey("sk-one-abcd")?.secret).toBe("sk-one-abcd");
  });

  it("restarts readyAfterMs delays on reset", () => {
    let now = 0;
    const state = new EmulatorState(
      { endpoints: [{ tenantId: "t", jobAlias: "a", readyAfterMs: 10 }] },
      { clock: () => now },
    );
    now = 10;
    expect(state.endpointState("t.a")).toBe("Running");
    state.reset();
    expect(state.endpoint("t.a")).toMatchObject({
      state: "Pending",
      readyAt: new Date(20).toISOString(),
    });
  });

  it("tops up the credit by a positive amount only", () => {
    const state = new EmulatorState({ credit: 1 });
    expect(state.topUp(2)).toBe(3);
    expect(() => state.topUp(0)).toThrow(EmulatorConfigError);
    expect(state.credit).toBe(3);
  });

  it("refuses a top-up or a credit past the most a Wallet holds, keeping the credit finite", () => {
    const state = new EmulatorState({ credit: 1 });
    expect(() => state.topUp(1e308)).toThrow(
      /the credit would be 1e\+308, above the most the emulator's Wallet holds \(1000000000000\)/,
    );
    expect(() => state.topUp(Number.MAX_VALUE)).toThrow(EmulatorConfigError);
    state.topUp(MAX_CREDIT - 1);
    expect(state.credit).toBe(MAX_CREDIT);
    expect(() => state.topUp(1)).toThrow(EmulatorConfigError);
    expect(() => state.setCredit(1e308)).toThrow(EmulatorConfigError);
    expect(() => state.setCredit(-1e308)).toThrow(EmulatorConfigError);
    expect(() => new EmulatorState({ credit: 1e308 })).toThrow(EmulatorConfigError);
    expect(state.credit).toBe(MAX_CREDIT);
    expect(Number.isFinite(state.snapshot().credit)).toBe(true);
  });

  it("keeps prices and debits within the Wallet's bounds, so the credit never becomes -Infinity", () => {
    const state = new EmulatorState({ credit: 1 });
    expect(() => state.addModel({ id: "dear", prices: { input: 1e308, output: 1 } })).toThrow(
      /prices\.input must be .*1000000000000/,
    );
    state.debit(Number.MAX_VALUE);
    state.debit(Number.MAX_VALUE);
    expect(state.credit).toBe(-MAX_CREDIT);
    expect(JSON.parse(JSON.stringify(state.snapshot())).credit).toBe(-MAX_CREDIT);
  });

  it("keeps the newest requestLogLimit entries", () => {
    const state = new EmulatorState({}, { requestLogLimit: 3 });
    for (let i = 0; i < 10; i++) {
      state.record({
        requestId: String(i),
        time: "",
        surface: "hosted",
        stream: false,
        promptTokens: 0,
        completionTokens: 0,
        totalTokens: 0,
        cost: 0,
        status: 200,
      });
    }
    expect(state.requests().map((entry) => entry.requestId)).toEqual(["7", "8", "9"]);
    expect(state.lastRequest()?.requestId).toBe("9");
  });

  it.each([
    [{ keys: [{}] }, "keys[0].secret must be a non-empty string"],
    [{ keys: [{ secret: "a" }, { secret: "a" }] }, "keys[1].secret is already in use"],
    [
      { keys: [{ secret: "a", expiresAt: "someday" }] },
      "keys[0].expiresAt must be an ISO date or epoch milliseconds",
    ],
    [
      { endpoints: [{ tenantId: "t", jobAlias: "a", state: "Up" }] },
      'endpoints[0].state must be "Pending" or "Running"',
    ],
    [
      { endpoints: [{ tenantId: "t", jobAlias: "a", replicas: 0 }] },
      "endpoints[0].replicas must be a finite number >= 1",
    ],
    [
      { models: [{ id: "m", prices: { input: 1 } }] },
      "models[0].prices.output must be a finite number >= 0",
    ],
    [
      { models: [{ id: "m", profile: { contextWindow: 8192 } }] },
      `models[0].profile.contextWindow is not a profile field; a profile has ${PROFILE_FIELDS.join(", ")}`,
    ],
    [
      { models: [{ id: "m", profile: { maxInputTokens: 0 } }] },
      "models[0].profile.maxInputTokens must be a whole number of tokens ≥ 1 (the context window)",
    ],
    [
      { models: [{ id: "m", profile: { toolCalling: "yes" } }] },
      "models[0].profile.toolCalling must be true or false",
    ],
    [
      { keys: [{ secret: "a", expiresAt: 1e20 }] },
      "keys[0].expiresAt must be a date JavaScript can hold: epoch milliseconds from -8640000000000000 to 8640000000000000",
    ],
    [
      { endpoints: [{ tenantId: "t", jobAlias: "a", readyAfterMs: 1e20 }] },
      "endpoints[0].readyAfterMs must be at most 2147483647 (about 24.8 days)",
    ],
    [
      { models: [{ id: "e", embedding: { dimensions: 300_000 } }] },
      "models[0].embedding.dimensions must be a whole number from 1 to 8192",
    ],
    [{ tenants: "all" }, "tenants must be an array"],
    [{ credit: Number.NaN }, "credit must be a finite number"],
    [{ colour: "blue" }, 'unknown emulator option "colour"'],
  ])("rejects the options %j with a message naming the field", (options, message) => {
    expect(() => createEmulator(options as never)).toThrow(new EmulatorConfigError(message));
  });
});
