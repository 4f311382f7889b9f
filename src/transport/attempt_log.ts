/**
 * @module How an attempt and the fetch layer under the openai SDK find each other with nothing
 * carried through the SDK but a header: the attempt opens a record in its channel's log and sends
 * its number in a private header; the fetch layer takes the header off before the request leaves
 * (it is never on the wire) and notes in the record what the attempt needs — the response's
 * headers, so that a failure the SDK raises later keeps the request ID.
 */

/** The private header naming an attempt to the fetch layer, which removes it before sending. */
export const ATTEMPT_HEADER = "x-inference-service-attempt";

/** What the fetch layer notes about one attempt, and what the attempt tells it. */
export interface AttemptRecord {
  /** The headers of the response the attempt got. */
  headers?: Headers;
  /** Set for a streamed call: a JSON answer to it is read as a stream would be. */
  stream?: boolean;
}

/** The attempts in flight on one channel, by number. */
export class AttemptLog {
  #last = 0;
  readonly #open = new Map<string, AttemptRecord>();

  /** Opens `record`; returns the headers to send the attempt with. Close it when the attempt ends. */
  open(record: AttemptRecord): { [ATTEMPT_HEADER]: string } {
    const id = String(++this.#last);
    this.#open.set(id, record);
    return { [ATTEMPT_HEADER]: id };
  }

  close(headers: { [ATTEMPT_HEADER]: string }): void {
    this.#open.delete(headers[ATTEMPT_HEADER]);
  }

  /** The record a request's attempt header names, if it is open here. */
  find(id: string | undefined): AttemptRecord | undefined {
    return id === undefined ? undefined : this.#open.get(id);
  }
}

/**
 * Takes the attempt header off a request's headers (in place: the SDK builds them for this one
 * request, and the fetch layer sends them on) and returns its value.
 */
export function takeAttemptHeader(headers: HeadersInit | undefined): string | undefined {
  if (headers === undefined) return undefined;
  if (headers instanceof Headers) {
    const id = headers.get(ATTEMPT_HEADER) ?? undefined;
    headers.delete(ATTEMPT_HEADER);
    return id;
  }
  if (Array.isArray(headers)) {
    const at = headers.findIndex(([name]) => name.toLowerCase() === ATTEMPT_HEADER);
    if (at < 0) return undefined;
    const [[, id]] = headers.splice(at, 1) as [[string, string]];
    return id;
  }
  const record = headers as Record<string, string>;
  for (const name of Object.keys(record)) {
    if (name.toLowerCase() !== ATTEMPT_HEADER) continue;
    const id = record[name];
    delete record[name];
    return id;
  }
  return undefined;
}
