/**
 * @module The cassette: a HAR 1.2 file (docs/testing.md#the-cassette-format) holding recorded
 * exchanges, with the few fields HAR lacks (a stream's events and their times, a connection
 * failure, our own format version) as `_`-prefixed custom fields, which HAR allows. Read, checked
 * and written here; nothing else parses the file.
 */
import { readFileSync } from "node:fs";
import { z } from "zod";
import { VERSION } from "../version.js";

/** The version of our own fields (`log._cassetteVersion`); a reader refuses any other. */
export const CASSETTE_VERSION = 1;

/** `log.creator.name` of the cassettes this package writes. */
export const CASSETTE_CREATOR = "langchain-inference-service";

/** A header or query parameter, as HAR lists them (in order, repeats allowed). */
export interface NameValue {
  name: string;
  value: string;
}

/** One event of a recorded stream: its text as sent (up to and with its blank line) and when. */
export interface StreamEvent {
  /** Milliseconds after the response's headers arrived. */
  time: number;
  text: string;
}

/** A recorded request. */
export interface CassetteRequest {
  /** Custom fields of other HAR tools survive a rewrite. */
  [custom: `_${string}`]: unknown;
  method: string;
  /** Absolute: the upstream's `…/inference/v1` followed by the path called. */
  url: string;
  httpVersion: string;
  cookies: NameValue[];
  /** The headers that select behaviour; every secret value reads `[redacted]`. */
  headers: NameValue[];
  queryString: NameValue[];
  postData?: {
    mimeType: string;
    text: string;
    /** `"base64"` when the body was not UTF-8 text (its bytes, base64-encoded, in `text`). */
    _encoding?: "base64";
  };
  headersSize: number;
  bodySize: number;
}

/** A recorded response. */
export interface CassetteResponse {
  [custom: `_${string}`]: unknown;
  /** 0 when no response came: the connection failed (see `_error`). */
  status: number;
  statusText: string;
  httpVersion: string;
  cookies: NameValue[];
  headers: NameValue[];
  content: {
    [custom: `_${string}`]: unknown;
    size: number;
    mimeType: string;
    /** The whole body (for a stream, its events joined: what other HAR tools show). */
    text?: string;
    /** `"base64"` when the body was not UTF-8 text. */
    encoding?: "base64";
    /** A stream's events in order; replay sends these (`text` must be them joined). */
    _events?: StreamEvent[];
  };
  redirectURL: string;
  headersSize: number;
  bodySize: number;
  /**
   * Why the exchange did not end normally: a connection error code (`ECONNREFUSED`, with status
   * 0: no response at all) or a cut after the body written so far (`ECONNRESET`). Replay does the same.
   */
  _error?: string;
}

/** One recorded exchange. */
export interface CassetteEntry {
  [custom: `_${string}`]: unknown;
  startedDateTime: string;
  /** Milliseconds from the request to the end of the response. */
  time: number;
  request: CassetteRequest;
  response: CassetteResponse;
  cache: Record<string, never>;
  timings: { send: number; wait: number; receive: number };
}

/** A whole cassette: a HAR 1.2 log. */
export interface Cassette {
  log: {
    [custom: `_${string}`]: unknown;
    version: "1.2";
    creator: { name: string; version: string };
    _cassetteVersion: number;
    entries: CassetteEntry[];
  };
}

/** A cassette that cannot be used: names the file and, where it can, the line or the entry. */
export class CassetteError extends Error {
  override readonly name = "CassetteError";
  constructor(
    readonly file: string,
    message: string,
  ) {
    super(`cassette ${file}: ${message}`);
  }
}

const nameValue = z.looseObject({ name: z.string(), value: z.string() });
const nonNegative = z.number().finite();

/** A header name as HTTP allows it (a token): what Node's `writeHead` and `Headers` accept. */
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** A character a header value may not hold: a line break, another control, or one beyond latin-1. */
const HEADER_VALUE_FORBIDDEN = /[^\t\x20-\x7e\x80-\xff]/;

/**
 * A header replay sends: checked when the cassette is opened, since Node throws on a name or
 * value it refuses, from a write no caller could catch.
 */
const sentHeader = z.looseObject({
  name: z.string().regex(HEADER_NAME, {
    error: "is not a header name HTTP allows (letters, digits and !#$%&'*+-.^_`|~, nothing else)",
  }),
  value: z.string().refine((value) => !HEADER_VALUE_FORBIDDEN.test(value), {
    error:
      "holds a line break, another control character or a character beyond latin-1, which an HTTP header cannot carry",
  }),
});

/**
 * The statuses replay can send: what a server sends as an answer (200 to 599; not 1xx, which
 * are interim), or 0 for a connection that failed before any answer.
 */
const replayableStatus = z
  .number()
  .refine(
    (status) => status === 0 || (Number.isInteger(status) && status >= 200 && status <= 599),
    {
      error:
        "must be an HTTP status from 200 to 599 (or 0: no answer, the connection failed), which is what a replay can send",
    },
  );

// Loose objects: a HAR tool may add fields of its own, and they survive a rewrite.
const entrySchema = z.looseObject({
  startedDateTime: z.string(),
  time: nonNegative,
  request: z.looseObject({
    method: z.string().min(1),
    url: z.string().url(),
    httpVersion: z.string(),
    cookies: z.array(z.unknown()),
    headers: z.array(nameValue),
    queryString: z.array(nameValue),
    postData: z
      .looseObject({
        mimeType: z.string(),
        text: z.string(),
        _encoding: z.literal("base64").optional(),
      })
      .optional(),
    headersSize: z.number(),
    bodySize: z.number(),
  }),
  response: z.looseObject({
    status: replayableStatus,
    statusText: z.string(),
    httpVersion: z.string(),
    cookies: z.array(z.unknown()),
    headers: z.array(sentHeader),
    content: z.looseObject({
      size: z.number(),
      mimeType: z.string(),
      text: z.string().optional(),
      encoding: z.literal("base64").optional(),
      _events: z.array(z.looseObject({ time: nonNegative.min(0), text: z.string() })).optional(),
    }),
    redirectURL: z.string(),
    headersSize: z.number(),
    bodySize: z.number(),
    _error: z.string().min(1).optional(),
  }),
  cache: z.looseObject({}),
  timings: z.looseObject({ send: z.number(), wait: z.number(), receive: z.number() }),
});

/** An empty cassette, ready for entries. */
export function emptyCassette(): Cassette {
  return {
    log: {
      version: "1.2",
      creator: { name: CASSETTE_CREATOR, version: VERSION },
      _cassetteVersion: CASSETTE_VERSION,
      entries: [],
    },
  };
}

/**
 * The cassette as written: HAR with two-space indentation, one header or stream event per line,
 * so that a re-recording shows in a diff as the entries that changed.
 */
export function serializeCassette(cassette: Cassette): string {
  return `${JSON.stringify(cassette, null, 2)}\n`;
}

/** Reads and checks the cassette at `file`; a CassetteError says what is wrong and where. */
export function readCassette(file: string): Cassette {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new CassetteError(
      file,
      code === "ENOENT"
        ? "no such file. Record it first (inference-service record, or INFERENCE_SERVICE_RECORD=all with the testing helper), or check the path"
        : code === "EISDIR"
          ? "is a directory, not a cassette file"
          : `cannot be read (${code ?? (error as Error).message})`,
    );
  }
  return parseCassette(text, file);
}

/**
 * How many entries `file` holds, as a cassette that recording may replace; undefined when there
 * is no such file. Refuses (a CassetteError) a file that holds anything else — a mistyped
 * `package.json` is not overwritten — and a folder. An empty file (0), or any HAR log whatever
 * its version or entries, may be replaced.
 */
export function replaceableCassette(file: string): number | undefined {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return undefined;
    throw new CassetteError(
      file,
      code === "EISDIR"
        ? "is a directory, not a cassette file: name a file (such as test/cassettes/app.har)"
        : `cannot be read (${code ?? (error as Error).message}), so it is not replaced`,
    );
  }
  if (text.trim() === "") return 0;
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    data = undefined;
  }
  const log = (data as { log?: { entries?: unknown } } | null | undefined)?.log;
  if (typeof log !== "object" || log === null || !Array.isArray(log.entries)) {
    throw new CassetteError(
      file,
      "exists and is not a cassette (no HAR log with entries), so recording will not overwrite it: check the path, or move the file away",
    );
  }
  return log.entries.length;
}

/** Parses and checks cassette text; `file` names it in messages. */
export function parseCassette(text: string, file: string): Cassette {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new CassetteError(file, `is not valid JSON: ${jsonErrorPlace(text, error as Error)}`);
  }
  const log = (data as { log?: unknown } | null)?.log as Record<string, unknown> | undefined;
  if (typeof log !== "object" || log === null || Array.isArray(log)) {
    throw new CassetteError(file, 'is not a HAR file: it has no "log" object at the top');
  }
  if (log.version !== "1.2") {
    throw new CassetteError(
      file,
      `is HAR version ${JSON.stringify(log.version)}; this package reads HAR "1.2" cassettes`,
    );
  }
  const version = log._cassetteVersion;
  if (version !== CASSETTE_VERSION) {
    throw new CassetteError(
      file,
      version === undefined
        ? `has no "_cassetteVersion" in its log: it was not written by ${CASSETTE_CREATOR}'s recorder. Record it again, or add "_cassetteVersion": ${CASSETTE_VERSION} if its entries are in this package's format`
        : `is of cassette version ${JSON.stringify(version)}, which this version of ${CASSETTE_CREATOR} (${VERSION}) does not know (it reads version ${CASSETTE_VERSION}); update the package or record the cassette again`,
    );
  }
  if (!Array.isArray(log.entries)) {
    throw new CassetteError(file, 'has no "entries" list in its log');
  }
  for (const [index, entry] of log.entries.entries()) checkEntry(entry, index, file, text);
  if (typeof log.creator !== "object" || log.creator === null) {
    log.creator = { name: CASSETTE_CREATOR, version: VERSION };
  }
  return data as Cassette;
}

function checkEntry(entry: unknown, index: number, file: string, text: string): void {
  // Found only for a refusal: finding it scans the text, which for every entry would be quadratic.
  const where = () => `entry ${index} (log.entries[${index}]${lineOfEntry(text, index)})`;
  const parsed = entrySchema.safeParse(entry);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const path = issue.path.map((part) =>
      typeof part === "number" ? `[${part}]` : `.${String(part)}`,
    );
    throw new CassetteError(
      file,
      `${where()}: ${path.join("").replace(/^\./, "")}${aboutField(entry, issue.path)}: ${issue.message}`,
    );
  }
  const { content } = parsed.data.response;
  if (content._events && content.text !== undefined) {
    const joined = content._events.map((event) => event.text).join("");
    if (joined !== content.text) {
      throw new CassetteError(
        file,
        `${where()}: response.content.text differs from its _events joined; replay sends the _events, so edit both alike (or delete text)`,
      );
    }
  }
  if (content._events && content.encoding === "base64") {
    throw new CassetteError(file, `${where()}: a stream's _events are text; remove encoding`);
  }
}

/**
 * What names the faulty field further: the status it holds (` (50)`), or the header a value
 * belongs to (` (header "x-team")`). Never a header's value: a hand-edited one may be a secret.
 */
function aboutField(entry: unknown, path: readonly PropertyKey[]): string {
  const at = (keys: readonly PropertyKey[]) =>
    keys.reduce<unknown>(
      (value, key) =>
        typeof value === "object" && value !== null
          ? (value as Record<PropertyKey, unknown>)[key]
          : undefined,
      entry,
    );
  const last = path[path.length - 1];
  if (last === "status") {
    const status = at(path);
    return typeof status === "number" ? ` (${status})` : "";
  }
  if (last === "value" && path[path.length - 3] === "headers") {
    const name = at([...path.slice(0, -1), "name"]);
    return typeof name === "string" ? ` (header ${JSON.stringify(name)})` : "";
  }
  return "";
}

/** `, line N` of the N-th entry's opening brace in a cassette as this package writes it. */
function lineOfEntry(text: string, index: number): string {
  const start = text.indexOf('"entries"');
  if (start < 0) return "";
  // Entries of a written cassette open at six spaces of indentation.
  const opening = /\n {6}\{/g;
  opening.lastIndex = start;
  let match: RegExpExecArray | null = null;
  for (let i = 0; i <= index; i++) {
    match = opening.exec(text);
    if (!match) return "";
  }
  return `, line ${text.slice(0, match!.index + 1).split("\n").length}`;
}

/** `line L, column C: <what JSON.parse said>` for a syntax error. */
function jsonErrorPlace(text: string, error: Error): string {
  const position = /position (\d+)/.exec(error.message)?.[1];
  const lineColumn = /line (\d+) column (\d+)/.exec(error.message);
  const detail = error.message.replace(/\s*\(line \d+ column \d+\)/, "");
  if (lineColumn) return `line ${lineColumn[1]}, column ${lineColumn[2]}: ${detail}`;
  if (position === undefined) {
    return text.trim() === "" ? "the file is empty" : detail;
  }
  const before = text.slice(0, Number(position));
  const line = before.split("\n").length;
  const column = Number(position) - before.lastIndexOf("\n");
  return `line ${line}, column ${column}: ${detail}`;
}
