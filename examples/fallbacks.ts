/**
 * @module Falling back to another model on a typed error: LangChain's `modelFallbackMiddleware`
 * (any error), a middleware that falls back only on what another model can fix (a passing fault,
 * no credit), `withFallbacks` outside agents, and a fallback to a model with a larger context
 * window, chosen from `profiles`, on `ContextLengthExceededError`.
 *
 * Against the emulator the primary model fails on purpose: the `X-Emulator-Fault` header makes
 * the emulator answer its calls with the error named (a 503, an empty Wallet, a prompt too long).
 */
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import type { AIMessage } from "@langchain/core/messages";
import { createAgent, createMiddleware, MiddlewareError, modelFallbackMiddleware } from "langchain";
import {
  BadRequestError,
  ChatInferenceService,
  type ChatInferenceServiceFields,
  ContextLengthExceededError,
  InferenceServiceError,
  InsufficientCreditError,
  type ModelProfiles,
} from "langchain-inference-service";
import { type Connection, type Log, runIfMain } from "./connection.js";

const PRIMARY = "emulator-chat";
const BACKUP = "emulator-reasoner";

/** Another model can succeed where this one failed: a passing fault, or no credit on its account. */
function anotherModelMayAnswer(error: unknown): boolean {
  return (
    InferenceServiceError.isInstance(error) &&
    (error.retryable || InsufficientCreditError.isInstance(error))
  );
}

/**
 * Falls back to `backups` in turn when the model call fails with an error another model can fix;
 * any other error (a bad request, a refused prompt, a bad key) is thrown at once, not hidden.
 */
function fallbackOnServiceErrors(...backups: BaseChatModel[]) {
  return createMiddleware({
    name: "fallbackOnServiceErrors",
    wrapModelCall: async (request, handler) => {
      let lastError: unknown;
      for (const model of [request.model, ...backups]) {
        try {
          return await handler({ ...request, model });
        } catch (error) {
          if (!anotherModelMayAnswer(error)) throw error;
          lastError = error;
        }
      }
      throw lastError;
    },
  });
}

/**
 * On `ContextLengthExceededError`, calls the next of `models` whose context window
 * (`profile.maxInputTokens`, declared in `profiles`) is larger than the one that failed.
 */
function largerContextWindow(...models: BaseChatModel[]) {
  const window = (model: object) =>
    ("profile" in model ? (model as BaseChatModel).profile?.maxInputTokens : undefined) ?? 0;
  const bySize = [...models].sort((a, b) => window(a) - window(b));
  return createMiddleware({
    name: "largerContextWindow",
    wrapModelCall: async (request, handler) => {
      let model = request.model;
      for (;;) {
        try {
          return await handler({ ...request, model });
        } catch (error) {
          const larger = bySize.find((candidate) => window(candidate) > window(model));
          if (!ContextLengthExceededError.isInstance(error) || larger === undefined) throw error;
          model = larger;
        }
      }
    },
  });
}

/** The model ID that wrote the agent's last message. */
function answeredBy(messages: readonly { response_metadata?: AIMessage["response_metadata"] }[]) {
  return String(messages.at(-1)?.response_metadata?.model_name);
}

export async function main(log: Log = console.log, connection?: Connection): Promise<void> {
  const { emulator } = connection ?? {};
  if (!emulator) {
    log("fallbacks: skipped (the primary model fails only against the emulator)");
    return;
  }
  // The service publishes no context windows: declare them (here, the emulator's catalogue).
  const profiles: ModelProfiles = emulator.state.modelProfiles();
  // No retries on the failing primary, so that the fallback comes at once; with retries, it
  // comes after them.
  const failing = (fault: string, fields: ChatInferenceServiceFields = {}) =>
    new ChatInferenceService(PRIMARY, {
      maxRetries: 0,
      profiles,
      configuration: { defaultHeaders: { "X-Emulator-Fault": fault } },
      ...fields,
    });
  const backup = new ChatInferenceService(BACKUP, { profiles });
  const ask = { messages: [{ role: "user", content: "Summarise our refund policy" }] };

  // 1. LangChain's own middleware: falls back on any error of the primary.
  const simple = createAgent({
    model: failing("503"),
    tools: [],
    middleware: [modelFallbackMiddleware(backup)],
  });
  log(
    `modelFallbackMiddleware, primary 503: answered by ${answeredBy((await simple.invoke(ask)).messages)}`,
  );

  // 2. Only on what another model can fix: a passing fault or no credit.
  for (const fault of ["503", "insufficient_user_quota"]) {
    const agent = createAgent({
      model: failing(fault),
      tools: [],
      middleware: [fallbackOnServiceErrors(backup)],
    });
    log(
      `typed fallback, primary ${fault}: answered by ${answeredBy((await agent.invoke(ask)).messages)}`,
    );
  }
  const strict = createAgent({
    model: failing("invalid_request"),
    tools: [],
    middleware: [fallbackOnServiceErrors(backup)],
  });
  try {
    await strict.invoke(ask);
    log("typed fallback, primary invalid_request: answered");
  } catch (error) {
    // What a middleware throws reaches the caller as a MiddlewareError; the typed error is its cause.
    const cause = MiddlewareError.isInstance(error) ? error.cause : error;
    if (!BadRequestError.isInstance(cause)) throw error;
    log(`typed fallback, primary invalid_request: not hidden, ${cause.name} thrown`);
  }

  // 3. Outside agents: `withFallbacks` on the model (any error, like modelFallbackMiddleware).
  const chain = failing("502").withFallbacks([backup]);
  const reply = await chain.invoke("Summarise our refund policy");
  log(`withFallbacks, primary 502: answered by ${reply.response_metadata.model_name}`);

  // 4. A prompt too long for the primary's window goes to a model with a larger one.
  const small = failing("context_length_exceeded");
  const long = createAgent({
    model: small,
    tools: [],
    middleware: [largerContextWindow(small, backup)],
  });
  const result = await long.invoke(ask);
  log(
    `context window: ${PRIMARY} (${small.profile.maxInputTokens} tokens) refused the prompt; answered by ${answeredBy(result.messages)} (${backup.profile.maxInputTokens} tokens)`,
  );
}

await runIfMain(import.meta.url, main);
