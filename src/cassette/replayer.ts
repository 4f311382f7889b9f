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
import { type RawHeaders, Redactor, secretsOf } from "./redaction.js";

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
  /** Values that were redacted when recording (besides the credentials), each of at least 4 characters. @default [] */
  redact?: string[];
  /**
   * Serve a request's recordings again from the first once all were used, instead of answering
   * `not_in_cassette`: for a replay that outlives one run of the app (`emulator --replay --loop`).
   * @default false
   */
  loop?: boolean;
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
  /**
   * The `X-Emulator-Fault` the recorded request carried: the recording is then that fault's
   * answer already (recorded against the emulator).
   */
  recordedFault?: string;
  /** Milliseconds before the headers (0 with the `"fast"` timing). */
  waitMs: number;
}

/** A recording a replay never served. */
export interface UnusedRecording {
  /** Its index in the cassette's entries. */
  index: number;
  /** Its request, as messages name it: `POST /chat/completions (model "emulator-chat")`. */
  request: string;
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
  readonly #loop: boolean;
  readonly #recorded: Recorded[];
  /** The entries served at least once, for {@link Replayer.unused}. */
  readonly #used = new Set<number>();
  #lastRedactor: { id: string; redactor: Redactor } | undefined;
  readonly #byKey = new Map<string, Recorded[]>();
  readonly #served = new Map<string, number>();

  constructor(cassette: Cassette, file: string, options: Omit<ReplayOptions, "cassette"> = {}) {
    this.#file = file;
    this.#ignore = options.ignore ?? [];
    this.#redact = options.redact ?? [];
    this.#timing = options.timing ?? "fast";
    this.#loop = options.loop ?? false;
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

  /**
   * The entries no request was answered with so far, in order: each one's index and its request
   * (`POST /chat/completions (model "m")`).
   */
  unused(): UnusedRecording[] {
    return this.#recorded
      .filter(({ index }) => !this.#used.has(index))
      .map(({ index, key }) => ({ index, request: describe(key) }));
  }

  /**
   * The recording for `request`, or why there is none. With `consume: false`, only looks: the
   * same request gets the same recording next time.
   */
  answer(request: ReplayRequest, { consume = true }: { consume?: boolean } = {}): ReplayAnswer {
    const key = this.keyOf(request);
    const list = this.#byKey.get(key.id) ?? [];
    const served = this.#served.get(key.id) ?? 0;
    const recorded = list[this.#loop && list.length > 0 ? served % list.length : served];
    if (recorded) {
      if (consume) {
        this.#served.set(key.id, served + 1);
        this.#used.add(recorded.index);
      }
      return { hit: this.#answerOf(recorded) };
    }
    return { miss: this.#missMessage(key, list.length) };
  }

  /**
   * The match key of an incoming request, redacted as a recording is (its own credentials, its
   * key-shaped query parameters, the `redact` values): a request sent with `?key=` matches its
   * recording's `?key=[redacted]`.
   */
  keyOf(request: ReplayRequest): MatchKey {
    const header = request.headers["service-name"];
    const serviceName = Array.isArray(header) ? header[0] : header;
    const redactor = this.#redactorFor(
      secretsOf({ headers: request.headers, url: request.path, named: this.#redact }),
    );
    const { text: body } = redactor.body({ text: request.body, encoding: request.encoding });
    return matchKey(
      { ...request, path: redactor.url(request.path), body, serviceName },
      this.#ignore,
    );
  }

  /** The redactor of `secrets`: the last one again when they are the same (a run sends one key). */
  #redactorFor(secrets: string[]): Redactor {
    const id = secrets.join("\u0000");
    if (this.#lastRedactor?.id !== id) this.#lastRedactor = { id, redactor: new Redactor(secrets) };
    return this.#lastRedactor.redactor;
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
    const fault = entry.request.headers.find(
      (header) => header.name.toLowerCase() === "x-emulator-fault",
    )?.value;
    return {
      index,
      status: response.status,
      headers: response.headers,
      body,
      ...(response._error === undefined ? {} : { error: response._error }),
      ...(fault === undefined ? {} : { recordedFault: fault }),
      waitMs: fast ? 0 : Math.max(0, entry.timings.wait),
    };
  }

  #missMessage(key: MatchKey, recordings: number): string {
    // How to record it is the error's hint (the gateway codes' table): said once, not here too.
    const start = `No recorded answer for ${describe(key)} in cassette ${this.#file}`;
    if (recordings > 0) {
      return `${start}: it holds ${recordings} recording${recordings === 1 ? "" : "s"} of this request and ${recordings === 1 ? "it was" : "all were"} already used (the n-th identical request gets the n-th recording, once per replay). To replay ${recordings === 1 ? "it" : "them"} again, start a new replay (a new emulator, or openCassette in each test file), or replay in a loop (inference-service emulator --replay FILE --loop, or the replay option loop: true).`;
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
    if (!nearest) return `${start}: the cassette holds no entries.`;
    const what = differences(key, nearest.key);
    return `${start}. Nearest recorded: entry ${nearest.index}, ${describe(nearest.key)}, which differs in ${what.join("; ")}.`;
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
