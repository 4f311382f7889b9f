/** @module `inference-service doctor`: checks a configuration and prints what to change. */
import { MAX_TIMER_MS } from "../config/options.js";
import { ENV } from "../constants.js";
import { type Diagnosis, type DiagnosisCheck, diagnose } from "../diagnose/diagnose.js";
import {
  CONNECTION_FLAGS,
  CONNECTION_HELP,
  type CommandIO,
  connectionOptions,
  numberFlag,
  runCommand,
} from "./args.js";
import { CONNECTION_SETTINGS, cliWording } from "./wording.js";

const USAGE = `Usage: inference-service doctor [options]

Checks a configuration against the service and says what to change: the base URL, the API key,
a hosted model ID and the account credit, an embedding model, a rerank model, and a dedicated
endpoint's Service-Name and readiness. It sends at most six small requests: two chat completions
and one completion with max_tokens 1, one embedding of one word, one rerank of one document (the
model, embedding, rerank and endpoint checks are real calls and may cost a few tokens) and one
free GET of the service's model list, whose IDs the model checks name. Options default to the
same variables as the models.

Options:
${CONNECTION_HELP}
  --model ID            hosted model ID to check; the credit is checked with it
  --embedding-model ID  embedding model ID to check (default: $INFERENCE_SERVICE_EMBEDDING_MODEL)
  --rerank-model ID     rerank model ID to check (default: $INFERENCE_SERVICE_RERANK_MODEL)
  --timeout MS          milliseconds each request may take (default 30000)
  --json                print the diagnosis as JSON
  -h, --help            show this help

Exit status: 0 when no check fails, 1 when one does, 2 for a usage error.`;

const FLAGS = {
  ...CONNECTION_FLAGS,
  "embedding-model": { type: "string" },
  "rerank-model": { type: "string" },
  timeout: { type: "string" },
  json: { type: "boolean" },
} as const;

const DOCTOR_SETTINGS = [
  ...CONNECTION_SETTINGS,
  { option: "embeddingModel", flag: "--embedding-model", env: ENV.embeddingModel },
  { option: "rerankModel", flag: "--rerank-model", env: ENV.rerankModel },
  { option: "timeout", flag: "--timeout" },
];

const SYMBOLS: Record<DiagnosisCheck["status"], string> = {
  pass: "✔",
  fail: "✖",
  warn: "!",
  skip: "–",
};
const TITLE_WIDTH = 20;

/**
 * Runs `inference-service doctor` and resolves to its exit code: 0 when no check fails, 1 when
 * one does, 2 for a usage error. The API key is never printed, only masked (`sk-e…demo`).
 *
 * @example
 * // INFERENCE_SERVICE_API_KEY=… inference-service doctor --model emulator-chat --service-name tenant-demo.demo-endpoint
 * process.exitCode = await runDoctorCommand(["--model", "emulator-chat"]);
 */
export function runDoctorCommand(argv: string[], io: CommandIO = {}): Promise<number> {
  return runCommand(argv, io, {
    name: "doctor",
    usage: USAGE,
    flags: FLAGS,
    read: ({ values }) => ({
      ...connectionOptions(values),
      embeddingModel:
        typeof values["embedding-model"] === "string" ? values["embedding-model"] : undefined,
      rerankModel: typeof values["rerank-model"] === "string" ? values["rerank-model"] : undefined,
      json: values.json === true,
      timeout: numberFlag(
        values,
        "timeout",
        `a whole number of milliseconds from 1 to ${MAX_TIMER_MS} (about 24.8 days)`,
        // What a timer can wait: diagnose() refuses more.
        { min: 1, max: MAX_TIMER_MS },
      ),
    }),
    run: async ({ json, ...options }, { out }) => {
      const reword = cliWording(DOCTOR_SETTINGS, options);
      const found = await diagnose(options);
      // What the user typed or set is named, in the checklist and in the JSON alike.
      const diagnosis: Diagnosis = {
        ...found,
        checks: found.checks.map((check) => ({
          ...check,
          detail: reword(check.detail),
          ...(check.fix === undefined ? {} : { fix: reword(check.fix) }),
        })),
      };
      out(json ? `${JSON.stringify(diagnosis, null, 2)}\n` : formatDiagnosis(diagnosis));
      return diagnosis.ok ? 0 : 1;
    },
  });
}

/** The checklist: one line a check, the fix and request ID under each ✖ and !, then a summary. */
export function formatDiagnosis({ ok, checks }: Diagnosis): string {
  const indent = " ".repeat(TITLE_WIDTH + 2);
  const lines = [
    "Checking the inference service configuration (requests use max_tokens 1; the model and endpoint checks may cost a few tokens).",
    "",
  ];
  for (const check of checks) {
    lines.push(`${SYMBOLS[check.status]} ${check.title.padEnd(TITLE_WIDTH)}${check.detail}`);
    if (check.status === "fail" || check.status === "warn") {
      if (check.fix) lines.push(`${indent}fix: ${check.fix}`);
      if (check.requestId) lines.push(`${indent}request id: ${check.requestId}`);
    }
  }
  const count = (status: DiagnosisCheck["status"]) =>
    checks.filter((check) => check.status === status).length;
  const parts = [
    `${count("fail")} failed`,
    `${count("pass")} passed`,
    `${count("warn")} warning${count("warn") === 1 ? "" : "s"}`,
    `${count("skip")} skipped`,
  ].filter((part) => !part.startsWith("0 "));
  lines.push(
    "",
    ok
      ? `${SYMBOLS.pass} Nothing failed: ${parts.join(", ")}.`
      : `${SYMBOLS.fail} ${parts.join(", ")}: change what the ✖ lines say, then run doctor again.`,
  );
  return `${lines.join("\n")}\n`;
}
