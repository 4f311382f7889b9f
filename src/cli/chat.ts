/** @module `inference-service chat`: one prompt, the reply streamed to stdout, usage to stderr. */
import { BaseCallbackHandler } from "@langchain/core/callbacks/base";
import type { AIMessageChunk } from "@langchain/core/messages";
import { ChatInferenceService } from "../apis/chat/chat_models.js";
import { DedicatedEndpointLLM } from "../apis/completions/llms.js";
import { readEnv } from "../config/env.js";
import { ENV } from "../constants.js";
import { errorSummary } from "../diagnose/diagnose.js";
import {
  ConfigurationError,
  EndpointNotReadyError,
  InferenceServiceError,
} from "../errors/errors.js";
import {
  CONNECTION_FLAGS,
  CONNECTION_HELP,
  type CommandIO,
  type CommandLine,
  connectionOptions,
  numberFlag,
  runCommand,
  UsageError,
  type Writers,
} from "./args.js";
import { CONNECTION_SETTINGS, cliWording } from "./wording.js";

const USAGE = `Usage: inference-service chat --model ID [options] "prompt"
       inference-service chat --service-name NAME [options] "prompt"

Sends one prompt, streams the reply to stdout, then prints the token usage and the request ID to
stderr. With --model it calls a hosted model; with --service-name (or --tenant-id and --job-alias,
or ${ENV.tenantId} and ${ENV.jobAlias} and no --model) your dedicated endpoint.

Options:
  --model ID            hosted model ID
${CONNECTION_HELP}
  --max-tokens N        token cap on the reply (a whole number ≥ 1)
  --temperature T       sampling temperature (a number ≥ 0)
  --system TEXT         system message; on a dedicated endpoint it is put before the prompt
  --wait-for-ready MS   dedicated endpoint: while it is still Pending, keep retrying for up to
                        MS milliseconds (default 0: fail at once, after one request)
  -h, --help            show this help

Exit status: 0 when the reply arrived, or when the reader of stdout stopped reading (as
| head -c 100 does; the call is then cancelled); 1 when the service call failed; 2 for a usage
or configuration error.`;

const FLAGS = {
  ...CONNECTION_FLAGS,
  "max-tokens": { type: "string" },
  temperature: { type: "string" },
  system: { type: "string" },
  "wait-for-ready": { type: "string" },
} as const;

const CHAT_SETTINGS = [
  ...CONNECTION_SETTINGS,
  { option: "maxTokens", flag: "--max-tokens" },
  { option: "temperature", flag: "--temperature" },
  { option: "waitForReady", flag: "--wait-for-ready" },
];

/** One chat call as the command line asks for it. */
interface ChatRequest extends ReturnType<typeof connectionOptions> {
  dedicated: boolean;
  prompt: string;
  system?: string;
  maxTokens?: number;
  temperature?: number;
  waitForReady?: number;
}

/** What is printed to stderr after the reply. */
interface ChatUsage {
  inputTokens?: number;
  outputTokens?: number;
  totalTokens?: number;
  requestId?: string;
}

/**
 * Runs `inference-service chat` and resolves to its exit code: 0 when the reply arrived, 1 when
 * the service call failed (the typed error's message and hint go to stderr), 2 for a usage or
 * configuration error.
 *
 * @example
 * // inference-service chat --model emulator-chat "What is LangChain?"
 * process.exitCode = await runChatCommand(["--model", "emulator-chat", "What is LangChain?"]);
 */
export function runChatCommand(argv: string[], io: CommandIO = {}): Promise<number> {
  return runCommand(argv, io, {
    name: "chat",
    usage: USAGE,
    flags: FLAGS,
    positionals: true,
    read: readRequest,
    run: chat,
  });
}

/**
 * Streams the reply to stdout and the usage to stderr. When nobody reads stdout any more
 * (`| head -c 3`), the call is cancelled and the command exits 0 without another word.
 */
async function chat(request: ChatRequest, { out, err, outClosed }: Writers): Promise<number> {
  let printed = false;
  const write = (text: string) => {
    if (text === "") return;
    printed = true;
    out(text);
  };
  // Messages name the flag or the variable the value came from.
  const reword = cliWording(CHAT_SETTINGS, request);
  try {
    const usage = request.dedicated
      ? await chatDedicated(request, write, outClosed)
      : await chatHosted(request, write, outClosed);
    if (printed) out("\n");
    err(`${formatUsage(usage)}\n`);
    return 0;
  } catch (error) {
    // The reader went away: the reply was cut short on purpose, so there is nothing to report.
    if (outClosed.aborted) return 0;
    if (printed) out("\n");
    if (ConfigurationError.isInstance(error)) {
      err(`${reword(error.message)}\n`);
      return 2;
    }
    if (!InferenceServiceError.isInstance(error)) throw error;
    err(`✖ ${error.name}: ${reword(errorSummary(error))}\n  fix: ${reword(error.hint)}\n`);
    return 1;
  }
}

/** The request the command line asks for. */
function readRequest({ values, positionals }: CommandLine): ChatRequest {
  const options = connectionOptions(values);
  const namesEndpoint =
    options.serviceName !== undefined ||
    options.tenantId !== undefined ||
    options.jobAlias !== undefined;
  if (options.model !== undefined && namesEndpoint) {
    throw new UsageError(
      "give either --model (hosted model) or --service-name / --tenant-id / --job-alias (dedicated endpoint), not both",
    );
  }
  const dedicated =
    namesEndpoint ||
    (options.model === undefined &&
      (readEnv(ENV.tenantId) !== undefined || readEnv(ENV.jobAlias) !== undefined));
  if (options.model === undefined && !dedicated) {
    throw new UsageError(
      "say what to call: --model ID for a hosted model, or --service-name NAME for a dedicated endpoint",
    );
  }
  if (!dedicated && values["wait-for-ready"] !== undefined) {
    throw new UsageError(
      "--wait-for-ready is for a dedicated endpoint (--service-name); a hosted model is never Pending",
    );
  }
  const prompt = positionals.join(" ");
  if (prompt.trim() === "")
    throw new UsageError('the prompt is missing, e.g. "What is LangChain?"');
  const system = values.system;
  return {
    ...options,
    dedicated,
    prompt,
    system: typeof system === "string" ? system : undefined,
    maxTokens: numberFlag(values, "max-tokens", "a whole number ≥ 1", { min: 1 }),
    temperature: numberFlag(values, "temperature", "a number ≥ 0", { min: 0, decimals: true }),
    waitForReady: numberFlag(values, "wait-for-ready", "a whole number of milliseconds ≥ 0", {
      min: 0,
    }),
  };
}

async function chatHosted(
  request: ChatRequest,
  write: (text: string) => void,
  signal: AbortSignal,
): Promise<ChatUsage> {
  const { model = "", apiKey, baseURL, maxTokens, temperature, system, prompt } = request;
  const chat = new ChatInferenceService(model, { apiKey, baseURL, maxTokens, temperature });
  const messages: Array<[string, string]> = system
    ? [
        ["system", system],
        ["human", prompt],
      ]
    : [["human", prompt]];
  let whole: AIMessageChunk | undefined;
  for await (const chunk of await chat.stream(messages, { signal })) {
    write(chunk.text);
    whole = whole ? whole.concat(chunk) : chunk;
  }
  const usage = whole?.usage_metadata;
  const requestId = whole?.response_metadata?.requestId;
  return {
    inputTokens: usage?.input_tokens,
    outputTokens: usage?.output_tokens,
    totalTokens: usage?.total_tokens,
    requestId: typeof requestId === "string" ? requestId : undefined,
  };
}

async function chatDedicated(
  request: ChatRequest,
  write: (text: string) => void,
  signal: AbortSignal,
): Promise<ChatUsage> {
  const { serviceName, tenantId, jobAlias, apiKey, baseURL, maxTokens, temperature } = request;
  const { waitForReady } = request;
  const llm = new DedicatedEndpointLLM({
    ...{ serviceName, tenantId, jobAlias, apiKey, baseURL, maxTokens, temperature, waitForReady },
    streaming: true,
    // Without --wait-for-ready a Pending endpoint fails at once, as the help says, instead of
    // taking the usual retries; any other retryable failure is still retried.
    onFailedAttempt: waitForReady
      ? undefined
      : (error) => {
          if (EndpointNotReadyError.isInstance(error)) throw error;
        },
  });
  // docs/service-contract.md#dedicated-endpoints shows no roles on the completions surface: a system text simply leads the prompt.
  const prompt = request.system ? `${request.system}\n\n${request.prompt}` : request.prompt;
  const printer = BaseCallbackHandler.fromMethods({ handleLLMNewToken: (token) => write(token) });
  // Awaited, so every token is on stdout before the usage line reaches stderr.
  printer.awaitHandlers = true;
  const result = await llm.generate([prompt], { callbacks: [printer], signal });
  const info = result.generations[0]?.[0]?.generationInfo;
  const usage = result.llmOutput?.tokenUsage;
  return {
    inputTokens: usage?.promptTokens,
    outputTokens: usage?.completionTokens,
    totalTokens: usage?.totalTokens,
    requestId: typeof info?.requestId === "string" ? info.requestId : undefined,
  };
}

/** `usage: 8 input + 7 output = 15 tokens; request id 2026…`. */
function formatUsage({ inputTokens, outputTokens, totalTokens, requestId }: ChatUsage): string {
  const tokens =
    totalTokens === undefined
      ? "not reported"
      : `${inputTokens ?? "?"} input + ${outputTokens ?? "?"} output = ${totalTokens} tokens`;
  return `usage: ${tokens}; request id ${requestId ?? "not reported"}`;
}
