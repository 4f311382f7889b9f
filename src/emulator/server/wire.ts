/**
 * @module How a reply goes out on the wire, decided once for both transports: what is written, the
 * wait before each piece, how the response ends (finished, cut, held open for ever) and how far a
 * stream counts as relayed when its client leaves. node_server.ts and in_process.ts carry it out
 * with their own means (a socket; a `Response` whose body is pulled).
 */

import type { EmulatorResponse } from "../reply.js";

/** How a response ends once its pieces are out. */
export type Ending =
  /** Finished normally. */
  | "end"
  /** The connection dies after the last piece (`truncate`): the client sees the body cut. */
  | "cut"
  /** Nothing more is ever sent, and the response never ends (`stall`, `stall-mid`). */
  | "hold";

/** One reply, as a transport sends it. */
export interface WirePlan {
  status: number;
  headers: Record<string, string>;
  /** The body in one piece: a reply that is not a stream and ends normally. */
  whole?: string;
  /** Otherwise the pieces, written in turn (an empty piece is nothing on the wire, and left out). */
  pieces: readonly string[];
  /** The wait before each piece, in milliseconds. */
  waits: readonly number[];
  ending: Ending;
  /**
   * Whether the pieces go out at once, with no wait between them: a client that leaves has been
   * sent them all, and is billed them all, as a gateway relaying a fast model bills it.
   */
  instant: boolean;
  /** Says how many pieces were relayed (the route bills a stream by it); the first call counts. */
  relayed(pieces: number): void;
}

/** How `reply` goes out, with `chunkDelayMs` between a stream's events (replay: its recorded waits). */
export function wirePlan(reply: EmulatorResponse, chunkDelayMs: number): WirePlan {
  const { status, headers, body, abort, stall } = reply;
  const ending: Ending = abort ? "cut" : stall ? "hold" : "end";
  const recorded = reply.chunkDelaysMs;
  const pieces = (typeof body === "string" ? [body] : body).filter((piece) => piece !== "");
  let told = false;
  return {
    status,
    headers,
    ...(typeof body === "string" && ending === "end" ? { whole: body } : {}),
    pieces,
    waits: pieces.map((_, i) => recorded?.[i] ?? (i > 0 ? chunkDelayMs : 0)),
    ending,
    instant: chunkDelayMs === 0 && recorded === undefined,
    relayed: (count) => {
      if (told) return;
      told = true;
      reply.delivered?.(count);
    },
  };
}
