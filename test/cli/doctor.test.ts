import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { describe, expect, it, vi } from "vitest";
import { runDoctorCommand } from "../../src/cli/doctor.js";
import type { Diagnosis } from "../../src/diagnose/diagnose.js";
import {
  DEFAULT_EMBEDDING_MODEL,
  DEFAULT_MODEL,
  DEFAULT_RERANK_MODEL,
  DEFAULT_SERVICE_NAME,
  NO_PERMISSION_API_KEY,
  PENDING_SERVICE_NAME,
  startEmulator,
} from "../../src/emulator/index.js";
import { capture, useEmulator } from "./helpers.js";

const current = useEmulator();

/** Runs the command in-process, capturing what it writes. */
function doctor(...argv: string[]) {
  return capture(runDoctorCommand, argv);
}

/** The `X-Gateway-Request-Id` of the emulator's latest inference call. */
function lastRequestId(): string {
  const id = current().state.lastRequest()?.requestId;
  expect(id).toMatch(/^\d{32}$/);
  return id!;
}

describe("inference-service doctor", () => {
  it("prints a passing checklist and exits 0 against a healthy emulator", async () => {
    const { code, out, err, lines } = await doctor(
      "--model",
      DEFAULT_MODEL,
      "--embedding-model",
      DEFAULT_EMBEDDING_MODEL,
      "--rerank-model",
      DEFAULT_RERANK_MODEL,
      "--service-name",
      DEFAULT_SERVICE_NAME,
    );
    expect(code).toBe(0);
    expect(err).toBe("");
    expect(lines[0]).toMatch(
      /^Checking the inference service configuration .*may cost a few tokens/,
    );
    const checklist = lines.filter((line) => /^[✔✖!–] /.test(line)).slice(0, -1);
    expect(checklist.map((line) => line.slice(0, 22).trimEnd())).toEqual([
      "✔ Base URL",
      "✔ API reachable",
      "✔ API key",
      "✔ Model ID",
      "✔ Account credit",
      "✔ Embedding model",
      "✔ Rerank model",
      "✔ Service-Name",
      "✔ Dedicated endpoint",
    ]);
    expect(out).toContain(
      `✔ Base URL            ${current().baseURL} (from INFERENCE_SERVICE_BASE_URL; as given).\n`,
    );
    expect(out).toContain(
      "✔ API key             sk-e…demo (from INFERENCE_SERVICE_API_KEY) accepted",
    );
    expect(out).not.toContain("fix:");
    expect(out).toContain(
      '✔ Embedding model     "emulator-embedding" answered one embedding of 256 dimensions',
    );
    expect(out).toContain(
      '✔ Rerank model        "emulator-rerank" ranked one document, relevance score 0.667',
    );
    expect(out.endsWith("\n✔ Nothing failed: 9 passed.\n")).toBe(true);
    expect(out).not.toContain(current().apiKey);
  });

  it("prints the fix and the request ID under a ✖, and exits 1 (no credit)", async () => {
    current().state.setCredit(0);
    const { code, lines } = await doctor("--model", DEFAULT_MODEL);
    expect(code).toBe(1);
    const at = lines.findIndex((line) => line.startsWith("✖ Account credit"));
    expect(lines.slice(at, at + 3)).toEqual([
      "✖ Account credit      No credit left: HTTP 403 insufficient_user_quota (a Wallet at or below zero, not a rate limit).",
      "                      fix: Top up the account's credit; this is not a rate limit and retrying will not help.",
      `                      request id: ${lastRequestId()}`,
    ]);
    expect(lines.at(-2)).toBe(
      "✖ 1 failed, 4 passed, 4 skipped: change what the ✖ lines say, then run doctor again.",
    );
  });

  it("shows a wrong --api-key only masked, and fails it", async () => {
    const key = "sk-typed-on-the-command-line";
    const { code, out, err } = await doctor("--api-key", key);
    expect(code).toBe(1);
    expect(out).toContain(
      "✖ API key             sk-t…line (from --api-key) rejected with HTTP 401",
    );
    expect(out).toContain("fix: Set a valid, unexpired key with --api-key.");
    expect(out + err).not.toContain(key);
  });

  it("fails a key with a pasted zero-width space as a check, by its position, and exits 1", async () => {
    vi.stubEnv("INFERENCE_SERVICE_API_KEY", `${current().apiKey}\u200b`);
    const { code, out, err } = await doctor();
    expect(code).toBe(1);
    expect(err).toBe("");
    expect(out).toContain(
      "✖ API key             The API key cannot be sent: it holds a character that cannot be part of a key; no request carried it.\n",
    );
    expect(out).toContain(
      "fix: `INFERENCE_SERVICE_API_KEY` has a zero-width space (U+200B) at character 17 of the key: ",
    );
    expect(out).not.toContain(current().apiKey);
  });

  it("tells a missing permission from a Pending endpoint on the dedicated surface", async () => {
    vi.stubEnv("INFERENCE_SERVICE_API_KEY", NO_PERMISSION_API_KEY);
    const noPermission = await doctor("--service-name", DEFAULT_SERVICE_NAME);
    expect(noPermission.code).toBe(1);
    expect(noPermission.out).toContain(
      "✖ Dedicated endpoint  HTTP 401 from tenant-demo.demo-endpoint: the key works on the hosted surface, so it lacks the Inference Service permission.\n" +
        "                      fix: Use a valid, unexpired key that has the Inference Service permission (set INFERENCE_SERVICE_API_KEY).\n" +
        `                      request id: ${lastRequestId()}\n`,
    );

    vi.stubEnv("INFERENCE_SERVICE_API_KEY", current().apiKey);
    const pending = await doctor("--tenant-id", "tenant-demo", "--job-alias", "pending-endpoint");
    expect(pending.code).toBe(1);
    expect(pending.out).toContain(
      `✖ Dedicated endpoint  The dedicated endpoint "${PENDING_SERVICE_NAME}" at ${current().baseURL}/completions is not serving yet (still Pending): the server closed the connection without answering (UND_ERR_SOCKET).\n` +
        "                      fix: Wait until the endpoint's Scaling in the console shows every replica running (e.g. 1/1), then call again; or set `waitForReady` to let calls wait for it.\n\n",
    );
  });

  it("names the flag or the variable the value came from, in the text and in --json", async () => {
    const console = `${current().url}/console`;
    const fromFlag = await doctor("--base-url", console);
    expect(fromFlag.out).toContain(`(from --base-url; added /inference/v1)`);
    expect(fromFlag.out).toContain(
      "fix: That URL is not the inference service's API (a console page, or a wrong path prefix): set --base-url to the service's host root or its …/inference/v1 URL.",
    );
    expect(fromFlag.out).not.toMatch(/INFERENCE_SERVICE_BASE_URL|`baseURL`/);

    vi.stubEnv("INFERENCE_SERVICE_BASE_URL", console);
    const fromEnv = await doctor("--json");
    const reachable = (JSON.parse(fromEnv.out) as Diagnosis).checks[1]!;
    expect(reachable.fix).toBe(
      "That URL is not the inference service's API (a console page, or a wrong path prefix): set INFERENCE_SERVICE_BASE_URL to the service's host root or its …/inference/v1 URL.",
    );
    expect(fromEnv.out).not.toMatch(/--base-url|`baseURL`/);

    vi.stubEnv("INFERENCE_SERVICE_API_KEY", "");
    vi.stubEnv("INFERENCE_SERVICE_BASE_URL", current().baseURL);
    const nowhere = await doctor();
    expect(nowhere.out).toContain(
      "fix: Inference service API key not found. Pass --api-key or set INFERENCE_SERVICE_API_KEY (OPENAI_API_KEY and the other OPENAI_* variables are not read).",
    );
    vi.stubEnv("INFERENCE_SERVICE_API_KEY", current().apiKey);
    expect((await doctor()).out).toContain("Skipped: no model ID given (--model).");
  });

  it("takes the embedding model from INFERENCE_SERVICE_EMBEDDING_MODEL, and names the flag in a fix", async () => {
    vi.stubEnv("INFERENCE_SERVICE_EMBEDDING_MODEL", DEFAULT_EMBEDDING_MODEL);
    const fromEnv = await doctor();
    expect(fromEnv.out).toContain('✔ Embedding model     "emulator-embedding" answered');
    vi.stubEnv("INFERENCE_SERVICE_EMBEDDING_MODEL", "");
    const skipped = await doctor();
    expect(skipped.out).toContain(
      "– Embedding model     Skipped: no embedding model ID given (--embedding-model or INFERENCE_SERVICE_EMBEDDING_MODEL).\n",
    );
    const wrong = await doctor("--embedding-model", "emulator-embeding");
    expect(wrong.code).toBe(1);
    expect(wrong.out).toContain(
      'fix: Check the model ID passed as --embedding-model; retrying will not help. Did you mean "emulator-embedding"?',
    );
  });

  it("takes the rerank model from INFERENCE_SERVICE_RERANK_MODEL, and names the flag in a fix", async () => {
    vi.stubEnv("INFERENCE_SERVICE_RERANK_MODEL", DEFAULT_RERANK_MODEL);
    const fromEnv = await doctor();
    expect(fromEnv.out).toContain('✔ Rerank model        "emulator-rerank" ranked one document');
    vi.stubEnv("INFERENCE_SERVICE_RERANK_MODEL", "");
    const skipped = await doctor();
    expect(skipped.out).toContain(
      "– Rerank model        Skipped: no rerank model ID given (--rerank-model or INFERENCE_SERVICE_RERANK_MODEL).\n",
    );
    const wrong = await doctor("--rerank-model", "emulator-rerankk");
    expect(wrong.code).toBe(1);
    expect(wrong.out).toContain(
      'fix: Check the model ID passed as --rerank-model; retrying will not help. Did you mean "emulator-rerank"?',
    );
  });

  it("fails an unreachable host with the connection fix", async () => {
    const gone = await startEmulator({ port: 0 });
    await gone.close();
    const { code, out } = await doctor("--base-url", gone.url);
    expect(code).toBe(1);
    expect(out).toContain(
      `✖ API reachable       Could not reach the inference service at ${gone.baseURL}/chat/completions: nothing accepted the connection on that host and port (ECONNREFUSED).\n` +
        "                      fix: Check the host and port of --base-url and that the service is up there; connection failures are retried automatically.\n",
    );
    expect(out).toContain("– API key             Skipped: the API could not be reached.\n");
  });

  it("prints the diagnosis as JSON with --json, exit code unchanged, key absent", async () => {
    const { code, out } = await doctor("--json", "--model", "no-such-model");
    expect(code).toBe(1);
    const diagnosis = JSON.parse(out) as Diagnosis;
    expect(diagnosis.ok).toBe(false);
    expect(diagnosis.checks.map(({ id, status }) => `${id}:${status}`)).toEqual([
      "base-url:pass",
      "reachable:pass",
      "api-key:pass",
      "model:fail",
      "credit:skip",
      "embeddings:skip",
      "rerank:skip",
      "service-name:skip",
      "endpoint:skip",
    ]);
    expect(diagnosis.checks[3]).toMatchObject({
      title: "Model ID",
      requestId: lastRequestId(),
      error: { name: "ModelNotFoundError", code: "model_not_found", status: 503 },
    });
    expect(out).not.toContain(current().apiKey);
  });

  it.each([
    [
      ["--bse-url", "http://h"],
      "unknown option --bse-url. Did you mean --base-url? Run 'inference-service doctor --help'.",
    ],
    [["--apiKey", "k"], "unknown option --apiKey. Did you mean --api-key?"],
    [["--bogus"], "unknown option --bogus. Run 'inference-service doctor --help'."],
    [["extra"], 'unexpected argument "extra"; this command takes only options.'],
    [
      ["--timeout", "soon"],
      '--timeout must be a whole number of milliseconds from 1 to 2147483647 (about 24.8 days), in decimal digits without a point; got "soon".',
    ],
    [
      ["--timeout", "1e10"],
      '--timeout must be a whole number of milliseconds from 1 to 2147483647 (about 24.8 days), in decimal digits without a point; got "1e10".',
    ],
    [
      ["--timeout", "10000000000"],
      '--timeout must be a whole number of milliseconds from 1 to 2147483647 (about 24.8 days), got "10000000000".',
    ],
    [["--model"], "--model needs a value."],
    [["--json=yes"], '--json takes no value, got "yes".'],
  ])("exits 2 with one line in the CLI's format for %j", async (argv, message) => {
    const { code, out, err } = await doctor(...argv);
    expect(code).toBe(2);
    expect(out).toBe("");
    expect(err).toMatch(/^inference-service doctor: .+ Run 'inference-service doctor --help'\.\n$/);
    expect(err).toContain(message);
  });

  it("prints its help, which discourages --api-key, and exits 0", async () => {
    const { code, out } = await doctor("--help");
    expect(code).toBe(0);
    expect(out).toContain("Usage: inference-service doctor [options]");
    expect(out).toMatch(/--api-key KEY .*Prefer the variable/s);
  });

  it("runs as `inference-service doctor` through the real bin", async () => {
    const run = promisify(execFile);
    // One process, not tsx's launcher (a second node process in front of the bin).
    const { stdout } = await run(
      process.execPath,
      [
        "--import",
        "tsx",
        "src/cli/bin.ts",
        "doctor",
        "--json",
        "--service-name",
        DEFAULT_SERVICE_NAME,
      ],
      {
        env: {
          PATH: process.env.PATH,
          INFERENCE_SERVICE_BASE_URL: current().baseURL,
          INFERENCE_SERVICE_API_KEY: current().apiKey,
        },
      },
    );
    const diagnosis = JSON.parse(stdout) as Diagnosis;
    expect(diagnosis.ok).toBe(true);
    expect(diagnosis.checks.find(({ id }) => id === "endpoint")?.status).toBe("pass");
  });
});
