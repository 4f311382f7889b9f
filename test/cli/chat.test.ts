import { spawn } from "node:child_process";
import { describe, expect, it, vi } from "vitest";
import { runChatCommand } from "../../src/cli/chat.js";
import {
  DEFAULT_MODEL,
  DEFAULT_SERVICE_NAME,
  NO_PERMISSION_API_KEY,
  PENDING_SERVICE_NAME,
  startEmulator,
} from "../../src/emulator/index.js";
import { capture, useEmulator } from "./helpers.js";

const current = useEmulator();

/** Runs the command in-process, capturing what it writes. */
function chat(...argv: string[]) {
  return capture(runChatCommand, argv);
}

/** The request log entry of the emulator's latest inference call. */
function lastRequest() {
  const entry = current().state.lastRequest();
  expect(entry).toBeDefined();
  return entry!;
}

/** The stderr line the command prints after a reply, from the emulator's own count. */
function usageLine(entry: ReturnType<typeof lastRequest>): string {
  const { promptTokens, completionTokens, totalTokens, requestId } = entry;
  return `usage: ${promptTokens} input + ${completionTokens} output = ${totalTokens} tokens; request id ${requestId}\n`;
}

describe("inference-service chat", () => {
  it("streams a hosted model's reply to stdout, then usage and request ID to stderr", async () => {
    const { code, out, err, writes } = await chat("--model", DEFAULT_MODEL, "What is LangChain?");
    expect(code).toBe(0);
    expect(out).toBe('Emulated reply to: "What is LangChain?"\n');
    expect(writes).toBeGreaterThan(3); // token by token, then the newline
    const entry = lastRequest();
    expect(entry).toMatchObject({ surface: "hosted", model: DEFAULT_MODEL, stream: true });
    expect(err).toBe(usageLine(entry));
  });

  it("sends --system as the system message and --max-tokens as the cap", async () => {
    const { code, out } = await chat(
      "--model",
      DEFAULT_MODEL,
      "--system",
      "Context: Paris is the capital of France. Berlin is the capital of Germany.",
      "What is the capital of France?",
    );
    expect(code).toBe(0);
    expect(out).toBe("Paris is the capital of France.\n");

    const capped = await chat(
      "--model",
      DEFAULT_MODEL,
      "--max-tokens",
      "2",
      "Tell me a long story",
    );
    expect(capped.code).toBe(0);
    expect(lastRequest().completionTokens).toBe(2);
    expect(capped.err).toMatch(/^usage: \d+ input \+ 2 output = \d+ tokens; request id \d{32}\n$/);
  });

  it("streams from a dedicated endpoint with --service-name", async () => {
    const { code, out, err } = await chat(
      "--service-name",
      DEFAULT_SERVICE_NAME,
      "--temperature",
      "0",
      "Once upon a time",
    );
    expect(code).toBe(0);
    expect(out).toBe('Emulated completion of: "Once upon a time"\n');
    const entry = lastRequest();
    expect(entry).toMatchObject({
      surface: "dedicated",
      serviceName: DEFAULT_SERVICE_NAME,
      stream: true,
    });
    expect(err).toBe(usageLine(entry));
  });

  it("uses the dedicated endpoint named by the tenant and job alias variables when no --model is given", async () => {
    vi.stubEnv("INFERENCE_SERVICE_TENANT_ID", "tenant-demo");
    vi.stubEnv("INFERENCE_SERVICE_JOB_ALIAS", "demo-endpoint");
    const { code, out } = await chat("Hello", "there");
    expect(code).toBe(0);
    expect(out).toBe('Emulated completion of: "Hello there"\n');
    expect(lastRequest().serviceName).toBe(DEFAULT_SERVICE_NAME);
  });

  it("prints the typed error's message and hint and exits 1 (unknown model)", async () => {
    const { code, out, err } = await chat("--model", "no-such-model", "hi");
    expect(code).toBe(1);
    expect(out).toBe("");
    expect(err).toBe(
      `✖ ModelNotFoundError: The service does not know the model "no-such-model" (the service is not down). (status 503, code model_not_found, request id ${lastRequest().requestId})\n` +
        "  fix: Check the model ID passed as --model; retrying will not help. The service lists 9 models: emulator-chat, emulator-reasoner, emulator-thinker, emulator-r1, emulator-vllm, emulator-think-tags, emulator-think-open, emulator-embedding, emulator-rerank.\n",
    );
  });

  it("names --base-url, not the variable, when the flag gave the URL", async () => {
    const gone = await startEmulator({ port: 0 });
    await gone.close();
    const { code, err } = await chat("--base-url", gone.url, "--model", DEFAULT_MODEL, "hi");
    expect(code).toBe(1);
    expect(err).toBe(
      `✖ ServiceConnectionError: Could not reach the inference service at ${gone.baseURL}/chat/completions: nothing accepted the connection on that host and port (ECONNREFUSED).\n` +
        "  fix: Check the host and port of --base-url and that the service is up there; connection failures are retried automatically.\n",
    );
  });

  it("says once that a dedicated endpoint is Pending, with its URL, the cause and --wait-for-ready", async () => {
    const { code, err } = await chat("--service-name", PENDING_SERVICE_NAME, "hi");
    expect(code).toBe(1);
    // Without --wait-for-ready it fails at once, as the help says: one request, no retries.
    expect(current().state.requests()).toHaveLength(1);
    expect(err).toBe(
      `✖ EndpointNotReadyError: The dedicated endpoint "${PENDING_SERVICE_NAME}" at ${current().baseURL}/completions is not serving yet (still Pending): the server closed the connection without answering (UND_ERR_SOCKET).\n` +
        "  fix: Wait until the endpoint's Scaling in the console shows every replica running (e.g. 1/1), then call again; or set --wait-for-ready to let calls wait for it.\n",
    );
  });

  it("waits for a Pending endpoint with --wait-for-ready, then says how long it waited", async () => {
    const { code, err } = await chat(
      "--service-name",
      PENDING_SERVICE_NAME,
      "--wait-for-ready",
      "200",
      "hi",
    );
    expect(code).toBe(1);
    expect(err).toMatch(
      new RegExp(
        `^✖ EndpointNotReadyError: The dedicated endpoint "${PENDING_SERVICE_NAME}" was still not ready after waiting \\d+ ms \\(--wait-for-ready: 200 ms\\)\\.`,
      ),
    );
  });

  it("refuses --wait-for-ready for a hosted model, which is never Pending", async () => {
    const { code, err } = await chat("--model", DEFAULT_MODEL, "--wait-for-ready", "200", "hi");
    expect(code).toBe(2);
    expect(err).toContain("--wait-for-ready is for a dedicated endpoint (--service-name)");
  });

  it("says so when the port is one fetch never connects to", async () => {
    const { err } = await chat("--base-url", "http://127.0.0.1:1", "--model", DEFAULT_MODEL, "hi");
    expect(err).toContain(
      "http://127.0.0.1:1/inference/v1/chat/completions: fetch refuses to connect to that port, one it blocks for safety (such as 9 or 6000).\n  fix: Use another port in --base-url;",
    );
  });

  it("exits 1 with the credit fix when the Wallet is empty", async () => {
    current().state.setCredit(0);
    const { code, err } = await chat("--model", DEFAULT_MODEL, "hi");
    expect(code).toBe(1);
    expect(err).toMatch(
      /^✖ InsufficientCreditError: .*\(status 403, code insufficient_user_quota, request id \d{32}\)\n/,
    );
    expect(err).toContain("  fix: Top up the account's credit");
  });

  it("exits 1 when the key lacks the Inference Service permission, never printing the key", async () => {
    const { code, out, err } = await chat(
      "--api-key",
      NO_PERMISSION_API_KEY,
      "--service-name",
      DEFAULT_SERVICE_NAME,
      "hi",
    );
    expect(code).toBe(1);
    expect(err).toMatch(/^✖ AuthenticationError: /);
    expect(err).toContain(
      "fix: Use a valid, unexpired key that has the Inference Service permission",
    );
    expect(out + err).not.toContain(NO_PERMISSION_API_KEY);
  });

  it("exits 2 with the ConfigurationError's message when no key is configured", async () => {
    vi.stubEnv("INFERENCE_SERVICE_API_KEY", "");
    const { code, err } = await chat("--model", DEFAULT_MODEL, "hi");
    expect(code).toBe(2);
    expect(err).toBe(
      "Inference service API key not found. Pass --api-key or set INFERENCE_SERVICE_API_KEY (OPENAI_API_KEY and the other OPENAI_* variables are not read).\n",
    );
  });

  it("exits 2 naming the position of a character a key cannot hold, sending nothing", async () => {
    const { code, out, err } = await chat(
      "--api-key",
      "sk-emulator\x01demo",
      "--model",
      DEFAULT_MODEL,
      "hi",
    );
    expect({ code, out }).toEqual({ code: 2, out: "" });
    expect(err).toMatch(
      /^--api-key has a control character \(U\+0001\) at character 12 of the key: /,
    );
    expect(err).not.toContain("demo");
    expect(current().state.requests()).toEqual([]);
  });

  it.each([
    [["hi"], "say what to call: --model ID"],
    [["--model", DEFAULT_MODEL], "the prompt is missing"],
    [["--model", DEFAULT_MODEL, "--service-name", DEFAULT_SERVICE_NAME, "hi"], "not both"],
    [
      ["--model", DEFAULT_MODEL, "--max-tokens", "0", "hi"],
      '--max-tokens must be a whole number ≥ 1, got "0"',
    ],
    [
      ["--model", DEFAULT_MODEL, "--temperature=-1", "hi"],
      '--temperature must be a number ≥ 0, got "-1"',
    ],
    [
      ["--model", DEFAULT_MODEL, "--max-tokens", "0x10", "hi"],
      '--max-tokens must be a whole number ≥ 1, in decimal digits without a point; got "0x10"',
    ],
    [
      ["--model", DEFAULT_MODEL, "--max-tokens", "1e20", "hi"],
      '--max-tokens must be a whole number ≥ 1, in decimal digits without a point; got "1e20"',
    ],
    [
      ["--model", DEFAULT_MODEL, "--temperature", "1e3", "hi"],
      '--temperature must be a number ≥ 0, in decimal digits; got "1e3"',
    ],
    [
      ["--service-name", DEFAULT_SERVICE_NAME, "--wait-for-ready", "1e3", "hi"],
      "--wait-for-ready must be a whole number of milliseconds ≥ 0, in decimal digits",
    ],
    [["--model", DEFAULT_MODEL, "--bogus", "hi"], "unknown option --bogus."],
    [["--modle", DEFAULT_MODEL, "hi"], "unknown option --modle. Did you mean --model?"],
    [["--model", DEFAULT_MODEL, "--system", "-be terse", "hi"], "write --system=-be terse"],
  ])("exits 2 with one line in the CLI's format for %j, sending nothing", async (argv, message) => {
    const { code, out, err } = await chat(...argv);
    expect(code).toBe(2);
    expect(out).toBe("");
    expect(err).toMatch(/^inference-service chat: .+ Run 'inference-service chat --help'\.\n$/);
    expect(err).toContain(message);
    expect(current().state.requests()).toEqual([]);
  });

  it("cancels the call and exits 0 without another word once nobody reads stdout", async () => {
    const written: string[] = [];
    const errors: string[] = [];
    for (const target of [
      ["--model", DEFAULT_MODEL],
      ["--service-name", DEFAULT_SERVICE_NAME],
    ]) {
      written.length = 0;
      const reader = new AbortController();
      const code = await runChatCommand([...target, "Tell me a long story"], {
        stdout: (text) => {
          written.push(text);
          reader.abort(); // the reader leaves after the first piece
        },
        stderr: (text) => errors.push(text),
        stdoutClosed: reader.signal,
      });
      expect(code).toBe(0);
      expect(written).toHaveLength(1);
    }
    expect(errors).toEqual([]);
  });

  it("stops quietly through the real bin when the pipe's reader exits (| head -c 3)", async () => {
    const slow = await startEmulator({ port: 0, streamChunkDelayMs: 50 });
    try {
      // One process, not tsx's launcher (a second node process in front of the bin).
      const child = spawn(
        process.execPath,
        [
          "--import",
          "tsx",
          "src/cli/bin.ts",
          "chat",
          "--model",
          DEFAULT_MODEL,
          "Tell me a long story",
        ],
        {
          env: {
            PATH: process.env.PATH,
            INFERENCE_SERVICE_BASE_URL: slow.baseURL,
            INFERENCE_SERVICE_API_KEY: slow.apiKey,
          },
        },
      );
      let err = "";
      child.stderr.on("data", (chunk) => {
        err += String(chunk);
      });
      child.stdout.once("data", () => child.stdout.destroy());
      const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
      expect({ code, err }).toEqual({ code: 0, err: "" });
    } finally {
      await slow.close();
    }
  });

  it("prints its help and exits 0", async () => {
    const { code, out } = await chat("--help");
    expect(code).toBe(0);
    expect(out).toContain("--service-name NAME");
    expect(out).toContain("Prefer the variable");
  });
});
