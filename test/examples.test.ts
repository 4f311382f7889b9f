import { execFileSync } from "node:child_process";
import { readdir, readFile } from "node:fs/promises";
import { startEmulator } from "langchain-inference-service/emulator";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { main as agent } from "../examples/agent.js";
import { main as agents } from "../examples/agents.js";
import { main as chain } from "../examples/chain.js";
import type { Connection } from "../examples/connection.js";
import { main as dedicatedEndpoint } from "../examples/dedicated_endpoint.js";
import { main as errors } from "../examples/errors.js";
import { main as fallbacks } from "../examples/fallbacks.js";
import { main as graph } from "../examples/graph.js";
import { main as observability } from "../examples/observability.js";
import { main as rag } from "../examples/rag.js";
import { main as responsesAgent } from "../examples/responses_agent.js";
import { main as spendControl } from "../examples/spend_control.js";
import { main as streaming } from "../examples/streaming.js";
import { main as structuredOutput } from "../examples/structured_output.js";
import { main as thinkingAgent } from "../examples/thinking_agent.js";
import { main as usage } from "../examples/usage.js";
import { REDIS_SERVER, startRedis } from "./helpers/redis.js";
// A test as users write one, on a committed cassette: its own describe block runs in this file.
import "../examples/cassette.test.js";

// Every example runs against a real emulator on a free port, the way `npm run demo` runs them.
let connection: Connection;
const saved = { ...process.env };

beforeAll(async () => {
  const emulator = await startEmulator({ port: 0 });
  Object.assign(process.env, {
    INFERENCE_SERVICE_BASE_URL: emulator.baseURL,
    INFERENCE_SERVICE_API_KEY: emulator.apiKey,
    INFERENCE_SERVICE_TENANT_ID: "tenant-demo",
    INFERENCE_SERVICE_JOB_ALIAS: "demo-endpoint",
  });
  connection = { emulator, close: () => emulator.close() };
});

afterAll(async () => {
  await connection.close();
  process.env = saved;
});

async function output(run: (log: (line?: string) => void, c: Connection) => Promise<void>) {
  const lines: string[] = [];
  await run((line = "") => lines.push(line), connection);
  return lines.join("\n");
}

describe("examples", () => {
  it("responses agent calls both tools and sends its sealed reasoning back", async () => {
    const out = await output(responsesAgent);
    expect(out).toContain('tool call: get_weather({"city":"Paris"})');
    expect(out).toContain('tool call: get_time({"city":"Tokyo"})');
    expect(out).toMatch(/reasoning, sealed: Thinking about "What is the weather in Paris/);
    expect(out).toContain("answer: get_weather returned: It is 18°C and sunny in Paris.");
  });

  it("chain answers through prompt → model → parser", async () => {
    expect(await output(chain)).toMatch(/^answer: Emulated reply to: "Explain retries/);
  });

  it("streaming yields pieces, usage and a request id", async () => {
    const out = await output(streaming);
    expect(out).toMatch(/streamed \d+ pieces: Emulated reply/);
    expect(out).toMatch(/"input_tokens":\d+,"output_tokens":\d+/);
    expect(out).toMatch(/request id: \d+/);
  });

  it("agent calls both tools with arguments from the question and answers with their results", async () => {
    const out = await output(agent);
    expect(out).toContain("context window of emulator-chat: 32768 tokens");
    expect(out).toContain('tool call: get_weather({"city":"Paris"})');
    expect(out).toContain('tool call: convert_currency({"amount":100,"from":"EUR","to":"USD"})');
    expect(out).toContain("It is 18°C and sunny in Paris.");
    expect(out).toContain("100 EUR is 108.00 USD.");
  });

  it("thinking agent: two turns, its thoughts, tool calls and answers, cached tokens paid as the Wallet was", async () => {
    const out = await output(thinkingAgent);
    expect(out).toContain('tool call: get_weather({"city":"Paris"})');
    expect(out).toContain('tool call: get_time({"city":"Tokyo"})');
    expect(out).toContain('tool call: get_weather({"city":"Rome"})');
    expect(out).toMatch(/thought: Thinking about "And the weather in Rome\?"/);
    expect(out).toContain("answer: get_weather returned: It is 18°C and sunny in Rome.");
    expect(out).toMatch(/emulator-thinker\s+4\s+0\s+\d+\s+[1-9]\d*\s/);
    const [, drop, tracked] = /wallet drop ([\d.e-]+), tracked ([\d.e-]+)/.exec(out) ?? [];
    expect(drop).toBeDefined();
    expect(drop).toBe(tracked);
  });

  it("rag retrieves, reranks to the right file first and answers from the reranked pieces only", async () => {
    const out = await output(rag);
    expect(out).toMatch(/embedded \d+ pieces of 4 files/);
    const folder = new URL("../examples/rag_docs/", import.meta.url);
    const files = new Map<string, string>();
    for (const name of await readdir(folder)) {
      files.set(name, await readFile(new URL(name, folder), "utf8"));
    }
    const turns = out.split("question: ").slice(1);
    const best = ["billing.md", "dedicated-endpoints.md", "errors.md", "base-url.md"];
    expect(turns).toHaveLength(best.length);
    for (const [i, turn] of turns.entries()) {
      // topN 2 of the 4 candidates, best first, each with its relevance score.
      const reranked = [
        .../^reranked: (.*)$/m.exec(turn)![1]!.matchAll(/(\S+\.md) \((\d\.\d\d)\)/g),
      ];
      expect(
        reranked.map((m) => m[1]),
        turn,
      ).toHaveLength(2);
      expect(reranked[0]![1], turn).toBe(best[i]);
      expect(Number(reranked[0]![2])).toBeGreaterThan(Number(reranked[1]![2]));
      // The answer quotes the context it was given: a sentence of a reranked file, cited by its
      // place among the reranked pieces when it cites at all.
      const answer = /^answer: (.*)$/m.exec(turn)![1]!;
      const cited = /^\[(\d)\] \((\S+)\) /.exec(answer);
      if (cited) expect(cited[2]).toBe(reranked[Number(cited[1]) - 1]![1]);
      const sentence = answer.replace(/^\[\d\] \(\S+\) /, "");
      expect(sentence.length, turn).toBeGreaterThan(20);
      const sources = reranked.map((m) => files.get(m[1]!) ?? "");
      expect(
        sources.some((text) => text.includes(sentence)),
        turn,
      ).toBe(true);
    }
    expect(out).toContain("403 insufficient_user_quota");
  });

  it("structured output returns a schema-valid object with values from the text", async () => {
    const out = await output(structuredOutput);
    expect(out).toContain('person: {"name":"Ada Lovelace","age":36,"city":"London"}');
    expect(out).toContain("valid: true");
  });

  it("dedicated endpoint routes by Service-Name, reports Pending and waits for readiness", async () => {
    const out = await output(dedicatedEndpoint);
    expect(out).toContain("Service-Name: tenant-demo.demo-endpoint");
    expect(out).toMatch(/usage: \{"promptTokens":\d+/);
    expect(out).toContain("pending: EndpointNotReadyError");
    expect(out).toMatch(/waitForReady: answered after \d+ ms/);
  });

  it("errors shows every typed error with its hint", async () => {
    const out = await output(errors);
    for (const name of [
      "AuthenticationError",
      "ModelNotFoundError",
      "ConfigurationError",
      "ServiceNameError",
      "ServiceConnectionError",
      "InvalidURLError",
      "BaseURLError",
      "RateLimitError",
      "ServiceUnavailableError",
      "InsufficientCreditError",
      "EndpointNotReadyError",
    ]) {
      expect(out).toContain(name);
    }
    expect(out).not.toContain("no error");
    // Each message names the URL, the cause in words and what to do, once.
    expect(out).toMatch(
      /Could not reach the inference service at http:\/\/127\.0\.0\.1:\d+\/inference\/v1\/chat\/completions: nothing accepted the connection on that host and port \(ECONNREFUSED\)\.\n {4}hint: Check the host and port of `baseURL`/,
    );
    const pending = out.slice(out.indexOf("endpoint pending:"));
    expect(pending).toMatch(
      /at http:\/\/127\.0\.0\.1:\d+\/inference\/v1\/completions is not serving yet/,
    );
    expect(pending.match(/Pending/g)).toHaveLength(1);
    expect(out).toMatch(
      /\/proxy\/inference\/v1\/chat\/completions answered HTTP 200 with an HTML page/,
    );
    expect(out).not.toContain("misses /inference/v1");
    expect(out).not.toMatch(/\w\.\.(\s|$)/);
  });

  it("graph streams each node's tokens as they arrive, tagged with the node, with the request id", async () => {
    const out = await output(graph);
    expect(out).toMatch(
      /^draft: \d{2,} pieces, request id \d+: Emulated reply to: "What is a context window\?"$/m,
    );
    expect(out).toMatch(
      /^review: \d{2,} pieces, request id \d+: Emulated reply to: "Make this shorter: Emulated reply/m,
    );
  });

  it("fallbacks: the backup model answers when the primary fails with a 503, no credit or a too-long prompt, and a bad request is not hidden", async () => {
    const before = connection.emulator!.state.requests().length;
    const out = await output(fallbacks);
    expect(out.split("\n")).toEqual([
      "modelFallbackMiddleware, primary 503: answered by emulator-reasoner",
      "typed fallback, primary 503: answered by emulator-reasoner",
      "typed fallback, primary insufficient_user_quota: answered by emulator-reasoner",
      "typed fallback, primary invalid_request: not hidden, BadRequestError thrown",
      "withFallbacks, primary 502: answered by emulator-reasoner",
      "context window: emulator-chat (32768 tokens) refused the prompt; answered by emulator-reasoner (65536 tokens)",
    ]);
    // On the wire: each failing primary was called once (no retries before the fallback), and
    // the backup once per fallback; the bad request reached no backup. The emulator logs a
    // faulted call by its fault (it answers before reading the model ID).
    const sent = connection.emulator!.state.requests().slice(before);
    expect(sent.map((entry) => `${entry.fault ?? entry.model} ${entry.status}`)).toEqual([
      "503 503",
      "emulator-reasoner 200",
      "503 503",
      "emulator-reasoner 200",
      "insufficient_user_quota 403",
      "emulator-reasoner 200",
      "invalid_request 500",
      "502 502",
      "emulator-reasoner 200",
      "context_length_exceeded 400",
      "emulator-reasoner 200",
    ]);
  });

  it("agents: a cap ends a tool loop before the call that would overspend, fallbacks only where another model may answer, both streamed", async () => {
    const before = connection.emulator!.state.requests().length;
    const out = await output(agents);
    const [, sent] =
      /^budget, end: (\d+) calls sent, 1 refused; Budget reached: this run may spend 0\.001 credit \(maxCost\) and has spent [\d.]+ credit; its next model call to "emulator-chat" \(up to [\d.]+ credit\) was not sent\.$/m.exec(
        out,
      ) ?? [];
    expect(Number(sent)).toBeGreaterThan(2);
    expect(out).toMatch(
      /^budget, throw: BudgetExceededError: Usage budget reached: spent [\d.]+ credit of 0\.001 credit; the call to "emulator-chat" \(up to [\d.]+ credit\) was not sent\./m,
    );
    expect(out).toContain(
      "fallback, primary 503: answered by emulator-reasoner: get_weather returned: Sunny, 21°C in Paris",
    );
    expect(out).toContain(
      "fallback, primary insufficient_user_quota: not passed on, InsufficientCreditError thrown",
    );
    expect(out).toMatch(
      /^streamed: \d+ pieces \(get_weather returned: Sunny, 21°C in Paris\); 4 model calls, 2 failed, the rest by emulator-reasoner$/m,
    );
    // On the wire: the refused calls never left; each failing primary was called once per
    // step, and the backup once per step; the empty Wallet reached no backup.
    const wire = connection
      .emulator!.state.requests()
      .slice(before)
      .map((entry) => `${entry.fault ?? entry.model} ${entry.status}`);
    expect(wire).toEqual([
      ...Array<string>(2 * Number(sent)).fill("emulator-chat 200"),
      "503 503",
      "emulator-reasoner 200",
      "503 503",
      "emulator-reasoner 200",
      "insufficient_user_quota 403",
      "503 503",
      "emulator-reasoner 200",
      "503 503",
      "emulator-reasoner 200",
    ]);
  });

  it("observability prints, with the SDK's console exporter, the app's span over the calls' and their attempts'", async () => {
    const printed: Array<{
      name: string;
      id: string;
      parentSpanContext?: { spanId: string };
      attributes: Record<string, unknown>;
    }> = [];
    vi.spyOn(console, "dir").mockImplementation((span) => void printed.push(span));
    const out = await output(observability);
    vi.mocked(console.dir).mockRestore();
    expect(printed.map((span) => span.name)).toEqual([
      "POST /inference/v1/chat/completions",
      "chat emulator-chat",
      "POST /inference/v1/chat/completions",
      "chat emulator-chat",
      "answer a question",
    ]);
    const [attempt, call, , streamed, app] = printed;
    expect(attempt!.parentSpanContext?.spanId).toBe(call!.id);
    expect(call!.parentSpanContext?.spanId).toBe(app!.id);
    expect(streamed!.attributes).toMatchObject({
      "gen_ai.request.stream": true,
      "inference_service.stream.end": "ended",
      "inference_service.cost": expect.any(Number),
    });
    const [, ids] = /request IDs: (.*)/.exec(out) ?? [];
    expect(ids).toBe(
      `${call!.attributes["inference_service.request_id"]}, ${streamed!.attributes["inference_service.request_id"]}`,
    );
    // No prompt or reply in the spans: content capture is off.
    expect(JSON.stringify(printed)).not.toContain("What does a trace show");
    expect(out).toContain('reply: Emulated reply to: "What does a trace show?"');
  });

  it("usage prints a per-model summary and the budget sends only the calls it can hold", async () => {
    const out = await output(usage);
    expect(out).toMatch(/emulator-chat\s+5\s+0/);
    expect(out).toContain("budget: 2 of 5 calls sent, then: Usage budget reached");
  });
});

describe("examples/spend_control", () => {
  it("sends 3 of 20 calls, counts an abandoned stream, paces a batch, and skips Redis cleanly when none is reachable", async () => {
    vi.stubEnv("REDIS_URL", "redis://127.0.0.1:1");
    const out = await output(spendControl);
    expect(out).toContain("reservations: 3 of 20 calls sent, 17 refused");
    expect(out).toContain("budget 3: spent 3, reserved 0");
    expect(out).toMatch(
      /abandoned stream: counted \d+ output tokens \(abandoned: true, .*runs in flight: 0/,
    );
    expect(out).toMatch(/rate limit: 30 calls at 1,200\/min took \d/);
    expect(out).toContain(
      "redis: no server reachable at redis://127.0.0.1:1; skipped the shared budget",
    );
  });

  it.skipIf(REDIS_SERVER === undefined)(
    "shares one budget between two workers on Redis",
    async () => {
      const redis = await startRedis();
      try {
        vi.stubEnv("REDIS_URL", redis.url);
        expect(await output(spendControl)).toMatch(
          /two workers sharing a budget of 5 sent \d \+ \d = 5 calls/,
        );
      } finally {
        await redis.stop();
      }
    },
  );
});

describe("npm run demo", () => {
  it("prints every section and the usage summary, with no error", () => {
    const env = { ...saved, INFERENCE_SERVICE_BASE_URL: "", INFERENCE_SERVICE_API_KEY: "" };
    const out = execFileSync("npx", ["--no-install", "tsx", "examples/demo.ts"], {
      encoding: "utf8",
      env,
    });
    for (let section = 1; section <= 8; section++) expect(out).toContain(`── ${section}. `);
    expect(out).toContain("Usage and cost of the whole demo");
    expect(out).toMatch(/Done in \d+\.\d s\./);
  }, 120_000);
});
