import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type RunningEmulator, startEmulator } from "../../src/emulator/index.js";
import { ChatInferenceService, ConfigurationError } from "../../src/index.js";
import { openCassette, REPLAY_API_KEY } from "../../src/testing/index.js";

const dir = mkdtempSync(join(tmpdir(), "open-cassette-"));
let service: RunningEmulator;

beforeAll(async () => {
  service = await startEmulator();
});
afterAll(() => service.close());

/** What a test does with the session: one call on a model built from it. */
async function ask(session: { baseURL: string; apiKey: string }, question: string) {
  const model = new ChatInferenceService("emulator-chat", { ...session, maxRetries: 0 });
  const reply = await model.invoke(question);
  return { text: reply.text, requestId: reply.response_metadata.requestId };
}

describe("openCassette", () => {
  it("records with INFERENCE_SERVICE_RECORD=all against the env's service, then replays by default with no key", async () => {
    const file = join(dir, "flow.har");
    vi.stubEnv("INFERENCE_SERVICE_RECORD", "all");
    vi.stubEnv("INFERENCE_SERVICE_BASE_URL", service.url);
    vi.stubEnv("INFERENCE_SERVICE_API_KEY", service.apiKey);
    const recording = await openCassette(file);
    expect(recording.mode).toBe("record-all");
    expect(recording.apiKey).toBe(service.apiKey);
    const live = await ask(recording, "Hello");
    await recording.close();
    expect(readFileSync(file, "utf8")).not.toContain(service.apiKey);

    vi.stubEnv("INFERENCE_SERVICE_RECORD", "");
    vi.stubEnv("INFERENCE_SERVICE_API_KEY", "");
    const replay = await openCassette(file);
    expect(replay).toMatchObject({ mode: "replay", apiKey: REPLAY_API_KEY, cassette: file });
    expect(replay.env).toEqual({
      INFERENCE_SERVICE_BASE_URL: replay.baseURL,
      INFERENCE_SERVICE_API_KEY: REPLAY_API_KEY,
    });
    expect(await ask(replay, "Hello")).toEqual(live);
    await replay.close();
  });

  it("with new, replays what the cassette holds and records the rest", async () => {
    const file = join(dir, "new.har");
    const session = { baseURL: service.baseURL, apiKey: service.apiKey };
    const first = await openCassette(file, { mode: "record-all", ...session });
    const old = await ask(first, "old");
    await first.close();
    vi.stubEnv("INFERENCE_SERVICE_RECORD", "new");
    const second = await openCassette(file, session);
    expect(second.mode).toBe("record-new");
    expect(await ask(second, "old")).toEqual(old);
    await ask(second, "new");
    await second.close();
    const replay = await openCassette(file, { mode: "replay", reportUnused: false });
    expect((await ask(replay, "new")).text).toContain("new");
    await replay.close();
  });

  it("after a replay, reports the recordings the run never used, with the command that drops them", async () => {
    const file = join(dir, "unused.har");
    const session = { baseURL: service.baseURL, apiKey: service.apiKey };
    const recording = await openCassette(file, { mode: "record-all", ...session });
    await ask(recording, "used");
    await ask(recording, "stale");
    await recording.close();
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    try {
      const replay = await openCassette(file, { mode: "replay" });
      await ask(replay, "used");
      await replay.close();
      expect(warn.mock.calls).toEqual([
        [
          `cassette ${file}: 1 of 2 recordings was not used by this run: entry 1 (POST /chat/completions (model "emulator-chat")). If no test needs it any more, drop it with: npx inference-service cassette prune ${file} --drop 1 (reportUnused: false stops this note.)`,
        ],
      ]);
      warn.mockClear();
      const quiet = await openCassette(file, { mode: "replay", reportUnused: false });
      await quiet.close();
      expect(warn).not.toHaveBeenCalled();
    } finally {
      warn.mockRestore();
    }
  });

  it("with INFERENCE_SERVICE_RECORD=all and the service down, keeps the cassette there was and says so on close", async () => {
    const file = join(dir, "down.har");
    const good = await openCassette(file, {
      mode: "record-all",
      baseURL: service.baseURL,
      apiKey: service.apiKey,
    });
    await ask(good, "Hello");
    await good.close();
    const before = readFileSync(file, "utf8");
    const down = await startEmulator();
    const downURL = down.baseURL;
    await down.close();
    vi.stubEnv("INFERENCE_SERVICE_RECORD", "all");
    vi.stubEnv("INFERENCE_SERVICE_BASE_URL", downURL);
    vi.stubEnv("INFERENCE_SERVICE_API_KEY", "sk-any-key-1234");
    const recording = await openCassette(file);
    await expect(ask(recording, "Hello")).rejects.toThrow(
      `The recording proxy could not reach the upstream ${downURL}`,
    );
    await expect(recording.close()).rejects.toThrow(
      `no call reached the upstream ${downURL}: 1 call failed`,
    );
    expect(readFileSync(file, "utf8")).toBe(before);
  });

  it("misses with the message docs/testing.md shows, its advice said once", async () => {
    const file = join(dir, "support_bot.har");
    const session = { baseURL: service.baseURL, apiKey: service.apiKey };
    const recording = await openCassette(file, { mode: "record-all", ...session });
    await ask(recording, "How long do refunds take?");
    await recording.close();
    const replay = await openCassette(file, { mode: "replay", reportUnused: false });
    const error = await ask(replay, "How long are refunds?").catch((e: unknown) => e);
    await replay.close();
    const page = readFileSync(new URL("../../docs/testing.md", import.meta.url), "utf8");
    const shown = /\n(BadRequestError: The cassette holds no recording of this request: .*)\n/.exec(
      page,
    )![1]!;
    const real = String(error)
      .replace(file, "test/cassettes/support_bot.har")
      .replace(/request id \d+/, "request id 20260112093000123456789000000001");
    expect(real).toBe(shown);
    expect(real.match(/Record it/g)).toHaveLength(1);
  });

  it("refuses a redact value too short to redact, naming its place but not its value", async () => {
    const error = await openCassette(join(dir, "x.har"), { redact: ["long-enough", "abc"] }).catch(
      (e: unknown) => e,
    );
    expect(ConfigurationError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ option: "redact" });
    expect((error as Error).message).toBe(
      "`redact[1]` has 3 characters; a value to redact needs at least 4: a shorter one would also be replaced inside ordinary words, numbers and JSON keys, and break the cassette. Give the whole secret it is part of, or leave it out.",
    );
  });

  it("refuses to record without a key, naming the variable to set", async () => {
    vi.stubEnv("INFERENCE_SERVICE_RECORD", "all");
    vi.stubEnv("INFERENCE_SERVICE_BASE_URL", service.baseURL);
    vi.stubEnv("INFERENCE_SERVICE_API_KEY", "");
    const error = await openCassette(join(dir, "nokey.har")).catch((e: unknown) => e);
    expect(ConfigurationError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ option: "apiKey", envVar: "INFERENCE_SERVICE_API_KEY" });
    expect((error as Error).message).toBe(
      `INFERENCE_SERVICE_RECORD=all asks to record ${join(dir, "nokey.har")} against the real service, but no API key is set: set INFERENCE_SERVICE_API_KEY (or pass \`apiKey\`), or unset INFERENCE_SERVICE_RECORD to replay.`,
    );
  });

  it("checks its options, naming the option", async () => {
    await expect(openCassette(join(dir, "x.har"), { timing: "slow" as never })).rejects.toThrow(
      '`timing` must be "fast" or "recorded"; got "slow".',
    );
    await expect(openCassette(join(dir, "x.har"), { ignore: "user" as never })).rejects.toThrow(
      '`ignore` must be a list of body field paths such as ["user", "metadata.run_id"]; got "user".',
    );
  });

  it("refuses an INFERENCE_SERVICE_RECORD it does not know", async () => {
    vi.stubEnv("INFERENCE_SERVICE_RECORD", "always");
    await expect(openCassette(join(dir, "x.har"))).rejects.toThrow(
      'INFERENCE_SERVICE_RECORD must be "all" (record every call anew), "new" (record only what the cassette lacks) or unset (replay), got "always".',
    );
  });

  it("refuses to replay a cassette that is not there, naming it", async () => {
    await expect(openCassette(join(dir, "missing.har"))).rejects.toThrow(
      /^cassette .*missing\.har: no such file\. Record it first/,
    );
  });
});
