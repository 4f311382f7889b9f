import { describe, expect, it } from "vitest";
import { DEFAULT_API_KEY, EmulatorConfigError } from "../../../src/emulator/index.js";
import { createCore } from "../../../src/emulator/server/core.js";

const request = { method: "GET", url: "/_emulator/state", headers: {}, body: "" };

describe("createCore", () => {
  it("builds one state, fault injector and handler that both transports serve from", () => {
    const core = createCore({ credit: 3, streamChunkDelayMs: 5 });
    expect(core.apiKey).toBe(DEFAULT_API_KEY);
    expect(core.streamChunkDelayMs).toBe(5);
    expect(core.context.state.credit).toBe(3);
    const reply = core.handle(request);
    expect(reply).toMatchObject({ kind: "response", status: 200 });
  });

  it("picks as default key the first unexpired one with the Inference Service permission", () => {
    const core = createCore({
      keys: [
        { secret: "sk-old", expiresAt: 0 },
        { secret: "sk-hosted-only", permissions: [] },
        { secret: "sk-both" },
      ],
    });
    expect(core.apiKey).toBe("sk-both");
    expect(createCore({ keys: [{ secret: "sk-only", permissions: [] }] }).apiKey).toBe("sk-only");
    expect(createCore({ keys: [] }).apiKey).toBe("");
  });

  it("checks the options where they enter, naming the one at fault", () => {
    expect(() => createCore({ streamChunkDelayMs: -1 })).toThrow(EmulatorConfigError);
    expect(() => createCore({ clock: 5 as never })).toThrow(
      new EmulatorConfigError("clock must be a function returning epoch milliseconds"),
    );
    expect(() => createCore(null as never)).toThrow(
      new EmulatorConfigError("emulator options must be an object"),
    );
  });
});
