/**
 * @module What the package emits, as tables: every attribute, event and metric by name, where it
 * appears and when. The code reads the names from here and docs/observability.md's tables are
 * checked against these rows. Names follow the OpenTelemetry GenAI and HTTP client semantic
 * conventions; what they have no name for is under the package's own `inference_service.*`.
 */

/** One attribute: its name, where it is set, and what it holds. */
export interface AttributeRow {
  name: string;
  /** `call` (the CLIENT span of a model call), `attempt` (an HTTP attempt's span), `metrics`. */
  on: readonly ("call" | "attempt" | "metrics")[];
  /** When it is set, and what it holds, in a sentence. */
  doc: string;
}

const row = (name: string, on: AttributeRow["on"], doc: string): AttributeRow => ({
  name,
  on,
  doc,
});

/** Every attribute, by the name the code uses. */
export const ATTRIBUTES = {
  operation: row(
    "gen_ai.operation.name",
    ["call", "metrics"],
    "`chat`, `text_completion`, `embeddings` or `rerank` (a name of the package's own: the conventions have none for it): the API called",
  ),
  provider: row("gen_ai.provider.name", ["call", "metrics"], "`inference-service`"),
  requestModel: row(
    "gen_ai.request.model",
    ["call", "metrics"],
    "the model ID sent; on a dedicated endpoint, the body's `model` if any, else the Service-Name",
  ),
  serverAddress: row("server.address", ["call", "attempt", "metrics"], "the base URL's host"),
  serverPort: row(
    "server.port",
    ["call", "attempt", "metrics"],
    "the base URL's port (443 or 80 when it names none)",
  ),
  serviceName: row(
    "inference_service.service_name",
    ["call"],
    "dedicated endpoints: the `Service-Name` the call was routed by",
  ),
  stream: row("gen_ai.request.stream", ["call"], "`true` on a streamed call"),
  maxTokens: row(
    "gen_ai.request.max_tokens",
    ["call"],
    "`max_tokens` (or `max_completion_tokens`), when sent",
  ),
  temperature: row("gen_ai.request.temperature", ["call"], "`temperature`, when sent"),
  topP: row("gen_ai.request.top_p", ["call"], "`top_p`, when sent"),
  topK: row("gen_ai.request.top_k", ["call"], "`top_k`, when sent"),
  frequencyPenalty: row(
    "gen_ai.request.frequency_penalty",
    ["call"],
    "`frequency_penalty`, when sent",
  ),
  presencePenalty: row(
    "gen_ai.request.presence_penalty",
    ["call"],
    "`presence_penalty`, when sent",
  ),
  stopSequences: row("gen_ai.request.stop_sequences", ["call"], "`stop`, when sent"),
  seed: row("gen_ai.request.seed", ["call"], "`seed`, when sent"),
  choiceCount: row("gen_ai.request.choice.count", ["call"], "`n`, when sent and not 1"),
  outputType: row(
    "gen_ai.output.type",
    ["call"],
    "`json` for a `response_format` of `json_object` or `json_schema`, `text` for `text`",
  ),
  encodingFormats: row(
    "gen_ai.request.encoding_formats",
    ["call"],
    "embeddings: the `encoding_format` asked for",
  ),
  dimensions: row(
    "gen_ai.embeddings.dimension.count",
    ["call"],
    "embeddings: `dimensions`, when sent",
  ),
  responseId: row("gen_ai.response.id", ["call"], "the answer's `id`"),
  responseModel: row(
    "gen_ai.response.model",
    ["call", "metrics"],
    "the model the answer names (`model` of its body or chunks)",
  ),
  finishReasons: row(
    "gen_ai.response.finish_reasons",
    ["call"],
    "each choice's `finish_reason`, in the order of the choices",
  ),
  inputTokens: row(
    "gen_ai.usage.input_tokens",
    ["call"],
    "the `usage` the service reported: prompt tokens (cached ones included)",
  ),
  outputTokens: row("gen_ai.usage.output_tokens", ["call"], "the `usage` reported: reply tokens"),
  cachedInputTokens: row(
    "gen_ai.usage.cache_read.input_tokens",
    ["call"],
    "prompt tokens read from the model server's cache, when reported",
  ),
  cacheWriteTokens: row(
    "gen_ai.usage.cache_creation.input_tokens",
    ["call"],
    "prompt tokens written to the cache, when reported",
  ),
  reasoningTokens: row(
    "gen_ai.usage.reasoning.output_tokens",
    ["call"],
    "reply tokens spent on reasoning, when reported",
  ),
  timeToFirstChunk: row(
    "gen_ai.response.time_to_first_chunk",
    ["call"],
    "streams: seconds from the start of the call to the stream's first event",
  ),
  tokenType: row("gen_ai.token.type", ["metrics"], "`input` or `output` (token usage only)"),
  requestId: row(
    "inference_service.request_id",
    ["call"],
    "the `X-Gateway-Request-Id` of the last answer, success or failure",
  ),
  attempts: row("inference_service.attempts", ["call"], "HTTP attempts the call made"),
  streamEnd: row(
    "inference_service.stream.end",
    ["call"],
    "streams: `ended` (read to its end), `failed`, `left` (`break`, `return`) or `aborted` (its signal)",
  ),
  cost: row(
    "inference_service.cost",
    ["call"],
    "with a `UsageTracker` that prices the model: what the call cost, in the unit of its `prices`",
  ),
  settlement: row(
    "inference_service.settlement",
    ["call", "metrics"],
    "with a `UsageTracker`: how the call's usage was settled, as its usage record's `settlement` says — `reported`, `estimated`, `upper-bound`, `refused` or `none` (on the cost counter among the metrics)",
  ),
  currency: row(
    "inference_service.currency",
    ["call", "metrics"],
    "the tracker's `currency`, when it has one",
  ),
  errorType: row(
    "error.type",
    ["call", "attempt", "metrics"],
    "on failure: the class name of the typed error (`RateLimitError`, `BudgetExceededError`, `AbortError`, …)",
  ),
  errorCode: row(
    "inference_service.error.code",
    ["call", "attempt"],
    "on failure: the error's `code` (the gateway's, or the package's), when it has one",
  ),
  method: row("http.request.method", ["attempt"], "`POST`"),
  url: row(
    "url.full",
    ["attempt"],
    "the URL posted to: the base URL and the API's path (a base URL holds no credential or query)",
  ),
  urlTemplate: row("url.template", ["attempt"], "the URL's path"),
  resendCount: row(
    "http.request.resend_count",
    ["attempt"],
    "on a retry: how many attempts came before it",
  ),
  status: row(
    "http.response.status_code",
    ["attempt", "metrics"],
    "the answer's HTTP status, when one came",
  ),
  responseRequestId: row(
    "http.response.header.x-gateway-request-id",
    ["attempt"],
    "the answer's `X-Gateway-Request-Id`, when it has one",
  ),
  inputMessages: row(
    "gen_ai.input.messages",
    ["call"],
    "opt-in (`captureContent`): the messages or prompt sent, as JSON",
  ),
  outputMessages: row(
    "gen_ai.output.messages",
    ["call"],
    "opt-in (`captureContent`): each choice's reply, as JSON",
  ),
} as const satisfies Record<string, AttributeRow>;

/** An attribute's name, by its key in {@link ATTRIBUTES}. */
export const ATTR = Object.fromEntries(
  Object.entries(ATTRIBUTES).map(([key, { name }]) => [key, name]),
) as { [K in keyof typeof ATTRIBUTES]: (typeof ATTRIBUTES)[K]["name"] };

/** One event of a call's span. */
export interface EventRow {
  name: string;
  /** Its attributes, by name, and what they hold. */
  attributes: Readonly<Record<string, string>>;
  doc: string;
}

/** The events a call's span may carry, by the name the code uses. */
export const EVENTS = {
  limiterWait: {
    name: "inference_service.rate_limiter.wait",
    attributes: { "inference_service.wait_ms": "milliseconds the attempt waited for its turn" },
    doc: "an attempt waited for the model's `RateLimiter` (one per attempt, 0 ms included)",
  },
  reserved: {
    name: "inference_service.budget.reserved",
    attributes: {
      "inference_service.budget.amount": "the attempt's worst-case cost, held until it settles",
      "inference_service.currency": "the tracker's `currency`",
    },
    doc: "a `UsageTracker` with a budget held the attempt's worst case",
  },
  refused: {
    name: "inference_service.budget.refused",
    attributes: {
      "inference_service.budget.amount": "what the attempt asked to hold",
      "inference_service.budget.limit": "the budget",
      "inference_service.budget.spent": "what was spent",
      "inference_service.budget.held": "what other calls held",
      "inference_service.currency": "the tracker's `currency`",
    },
    doc: "the budget could not hold the attempt: the call fails with `BudgetExceededError`, unsent",
  },
  retry: {
    name: "inference_service.retry",
    attributes: {
      "inference_service.retry.delay_ms": "milliseconds waited before the next attempt",
      "error.type": "the class of the error retried",
      "http.response.status_code": "its status, when it had one",
      "inference_service.retry.retry_after_ms": "the `Retry-After` the service asked for, if any",
      "http.request.resend_count": "the next attempt's resend count",
    },
    doc: "an attempt failed with a retryable error and the call waits to send it again",
  },
} as const satisfies Record<string, EventRow>;

/** One metric instrument. */
export interface MetricRow {
  name: string;
  /** A histogram, or a counter the package keeps the sums of and reports when a reader collects. */
  kind: "histogram" | "observable counter";
  unit: string;
  description: string;
  /** Bucket boundaries the conventions advise, for histograms. */
  buckets?: readonly number[];
}

/** The metric instruments, by the name the code uses. */
export const METRICS = {
  duration: {
    name: "gen_ai.client.operation.duration",
    kind: "histogram",
    unit: "s",
    description: "Duration of a model call, from its start to its answer or its stream's end.",
    buckets: [
      0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92,
    ],
  },
  tokens: {
    name: "gen_ai.client.token.usage",
    kind: "histogram",
    unit: "{token}",
    description: "Input and output tokens of a model call, as the service reported them.",
    buckets: [
      1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864,
    ],
  },
  timeToFirstChunk: {
    name: "gen_ai.client.operation.time_to_first_chunk",
    kind: "histogram",
    unit: "s",
    description: "Time from the start of a streamed call to its first event.",
    buckets: [
      0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0,
    ],
  },
  attempts: {
    name: "inference_service.client.attempts",
    kind: "observable counter",
    unit: "{attempt}",
    description: "HTTP attempts sent, with their status or error.",
  },
  retries: {
    name: "inference_service.client.retries",
    kind: "observable counter",
    unit: "{retry}",
    description: "Attempts sent again after a retryable failure, by error.",
  },
  cost: {
    name: "inference_service.client.cost",
    kind: "observable counter",
    unit: "{cost}",
    description: "Cost of the calls a UsageTracker priced, in the unit of its prices.",
  },
} as const satisfies Record<string, MetricRow>;
