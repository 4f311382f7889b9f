/**
 * @module The replayer: finds the recorded answer to a request in a cassette (the n-th identical
 * request gets the n-th recording), or says why there is none and which recorded request comes
 * nearest. Transport-neutral: the emulator and the recording proxy write what it returns.
 */
import {
  type Cassette,
  type CassetteEntry,
  type NameValue,
  readCassette,
  type StreamEvent,
} from "./cassette.js";
import { differences, distance, type MatchKey, matchKey, type RequestShape } from "./matcher.js";
import { type RawHeaders, scrub, secretsOf } from "./redaction.js";

/** How fast a replay answers: at once (default), or with the recorded waits between events. */
export type ReplayTiming = "fast" | "recorded";

/** What to replay and how. */
export interface ReplayOptions {
  /** The cassette file (HAR 1.2, as the recorder writes it). */
  cassette: string;
  /**
   * Body fields left out when matching, as dotted paths (`user`, `metadata.run_id`): values that
   * change from run to run. @default []
   */
  ignore?: string[];
  /** `"fast"`: every answer at once; `"recorded"`: with the recorded wait and event times. @default "fast" */
  timing?: ReplayTiming;
  /** Values that were redacted when recording (besides the key and secret headers). @default [] */
  redact?: string[];
}

/** A recorded answer, ready to write. */
export interface RecordedAnswer {
  /** Its index in the cassette's entries. */
  index: number;
  /** 0: no response (the connection failed with `error`). */
  status: number;
  headers: NameValue[];
  body: { text: string; encoding?: "base64" } | { events: StreamEvent[] };
  /** Set when the exchange ended in a connection failure: after the body, or (status 0) at once. */
  error?: string;
  /** Milliseconds before the headers (0 with the `"fast"` timing). */
  waitMs: number;
}

/** What the replayer makes of a request: the recorded answer, or the message of a miss. */
export type ReplayAnswer = { hit: RecordedAnswer } | { miss: string };

/** An incoming request: its shape, plus its headers (for the secrets redacted when recording). */
export interface ReplayRequest extends Omit<RequestShape, "serviceName"> {
  headers: RawHeaders;
}

/** The answer to a request the cassette does not hold: a 400 the client types as a bad request, not retried. */
export const MISS_STATUS = 400;
/** `error.code` of that answer, for programs to branch on. */
export const MISS_CODE = "not_in_cassette";

/** The JSON body of a miss, as the service writes its errors (docs/service-contract.md#errors). */
export function missBody(message: string): string {
  return JSON.stringify({ error: { code: MISS_CODE, message, type: "invalid_request_error" } });
}

interface Recorded {
  entry: CassetteEntry;
  index: number;
  key: MatchKey;
}

/** Answers requests from one cassette; counts what it served, so repeats get later recordings. */
export class Replayer {
  readonly #file: string;
  readonly #ignore: readonly string[];
  readonly #redact: readonly string[];
  readonly #timing: ReplayTiming;
  readonly #recorded: Recorded[];
  readonly #byKey = new Map<string, Recorded[]>();
  readonly #served = new Map<string, number>();

  constructor(cassette: Cassette, file: string, options: Omit<ReplayOptions, "cassette"> = {}) {
    this.#file = file;
    this.#ignore = options.ignore ?? [];
    this.#redact = options.redact ?? [];
    this.#timing = options.timing ?? "fast";
    this.#recorded = cassette.log.entries.map((entry, index) => ({
      entry,
      index,
      key: matchKey(recordedShape(entry), this.#ignore),
    }));
    for (const recorded of this.#recorded) {
      const list = this.#byKey.get(recorded.key.id) ?? [];
      list.push(recorded);
      this.#byKey.set(recorded.key.id, list);
    }
  }

  /** Reads the cassette (a CassetteError names the file and the entry when it is unusable). */
  static open(options: ReplayOptions | string): Replayer {
    const { cassette, ...rest } = typeof options === "string" ? { cassette: options } : options;
    return new Replayer(readCassette(cassette), cassette, rest);
  }

  /** How many exchanges the cassette holds. */
  get size(): number {
    return this.#recorded.length;
  }

  /** The cassette file. */
  get file(): string {
    return this.#file;
  }

  /** Forgets what was served: the next request gets the first recording again. */
  rewind(): void {
    this.#served.clear();
  }

  /** The recording for `request`, or why there is none. */
  answer(request: ReplayRequest): ReplayAnswer {
    const key = this.keyOf(request);
    const list = this.#byKey.get(key.id) ?? [];
    const served = this.#served.get(key.id) ?? 0;
    const recorded = list[served];
    if (recorded) {
      this.#served.set(key.id, served + 1);
      return { hit: this.#answerOf(recorded) };
    }
    return { miss: this.#missMessage(key, list.length) };
  }

  /** The match key of an incoming request: its body without its own secrets, as recorded. */
  keyOf(request: ReplayRequest): MatchKey {
    const header = request.headers["service-name"];
    const serviceName = Array.isArray(header) ? header[0] : header;
    const secrets = secretsOf(request.headers, this.#redact);
    const body = request.encoding === "base64" ? request.body : scrub(request.body, secrets);
    return matchKey(
      { ...request, path: scrub(request.path, secrets), body, serviceName },
      this.#ignore,
    );
  }

  #answerOf({ entry, index }: Recorded): RecordedAnswer {
    const { response } = entry;
    const { content } = response;
    const fast = this.#timing === "fast";
    const body = content._events
      ? { events: fast ? content._events.map((e) => ({ ...e, time: 0 })) : content._events }
      : {
          text: content.text ?? "",
          ...(content.encoding === "base64" ? { encoding: "base64" as const } : {}),
        };
    return {
      index,
      status: response.status,
      headers: response.headers,
      body,
      ...(response._error === undefined ? {} : { error: response._error }),
      waitMs: fast ? 0 : Math.max(0, entry.timings.wait),
    };
  }

  #missMessage(key: MatchKey, recordings: number): string {
    const start = `No recorded answer for ${describe(key)} in cassette ${this.#file}`;
    const end =
      "Record it (INFERENCE_SERVICE_RECORD=new with the testing helper, or inference-service record --mode new), or change the request back";
    if (recordings > 0) {
      return `${start}: it holds ${recordings} recording${recordings === 1 ? "" : "s"} of this request and ${recordings === 1 ? "it was" : "all were"} already used (the n-th identical request gets the n-th recording). ${end}.`;
    }
    let nearest: Recorded | undefined;
    let best = Number.POSITIVE_INFINITY;
    for (const recorded of this.#recorded) {
      const d = distance(key, recorded.key);
      if (d < best) {
        best = d;
        nearest = recorded;
      }
    }
    if (!nearest) return `${start}: the cassette holds no entries. ${end}.`;
    const what = differences(key, nearest.key);
    return `${start}. Nearest recorded: entry ${nearest.index}, ${describe(nearest.key)}, which differs in ${what.join("; ")}. ${end}.`;
  }
}

/** `POST /chat/completions (model "emulator-chat")`, `POST /completions (Service-Name "t.e")`. */
function describe(key: MatchKey): string {
  const model =
    "json" in key.body && typeof key.body.json === "object" && key.body.json !== null
      ? (key.body.json as { model?: unknown }).model
      : undefined;
  const about = [
    ...(typeof model === "string" ? [`model "${model}"`] : []),
    ...(key.serviceName ? [`Service-Name "${key.serviceName}"`] : []),
  ];
  return `${key.method} ${key.path}${about.length > 0 ? ` (${about.join(", ")})` : ""}`;
}

/** A recorded request as the matcher sees it. */
function recordedShape(entry: CassetteEntry): RequestShape {
  const { request } = entry;
  const url = new URL(request.url);
  const serviceName = request.headers.find((h) => h.name.toLowerCase() === "service-name")?.value;
  return {
    method: request.method,
    path: url.pathname + url.search,
    ...(serviceName === undefined ? {} : { serviceName }),
    body: request.postData?.text ?? "",
    ...(request.postData?._encoding === "base64" ? { encoding: "base64" as const } : {}),
  };
}
