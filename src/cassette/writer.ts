/**
 * @module Writes a cassette as exchanges finish. The file is created whole and atomically (a
 * temporary file renamed over it), so it is a valid cassette from the start; each exchange is then
 * appended in place, in one write that puts the entry where the closing brackets were and the
 * closing brackets after it. A write costs the size of what it adds, not of the cassette, and a
 * recorder killed at any moment leaves a valid cassette holding every exchange whose write had
 * finished. Entries that finish while a write is under way go in the next one, together.
 */
import { mkdirSync, readlinkSync, renameSync, unlinkSync, writeFileSync } from "node:fs";
import { open } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import { type Cassette, type CassetteEntry, CassetteError, serializeCassette } from "./cassette.js";

/** Where the entries go in the text of the cassette without them (an impossible entry). */
const SLOT = "\u0000entries\u0000";
/** Each entry opens at six spaces: inside `{ "log": { "entries": [`. */
const ENTRY_INDENT = "      ";
/** Before the first entry (after `[`), and between two. */
const FIRST = Buffer.from(`\n${ENTRY_INDENT}`);
const SEPARATOR = Buffer.from(`,\n${ENTRY_INDENT}`);
/** Links followed before giving up, as the system does (a loop of links). */
const MAX_LINKS = 40;

/** Appends entries to a cassette file. */
export class CassetteWriter {
  /** The cassette as named (a symbolic link stays one: the file it points to is written). */
  readonly file: string;
  readonly #target: string;
  /** The closing brackets after the entries, and where they start (undefined: no entry yet, `[]`). */
  readonly #close: Buffer;
  #closeAt: number | undefined;
  /** Where `[]` of an empty cassette opens: the first entry goes right after its `[`. */
  readonly #emptyOpenAt: number;
  #count: number;
  #pending: Buffer[] = [];
  #writing: Promise<void> | undefined;
  #failure: Error | undefined;

  /**
   * Writes `cassette` to `file` at once (creating its folder; through a symbolic link to the file
   * it names), so that the file is valid from the start.
   */
  constructor(file: string, cassette: Cassette) {
    this.file = file;
    this.#target = linkTarget(file);
    this.#count = cassette.log.entries.length;
    const frame = serializeCassette({
      ...cassette,
      log: { ...cassette.log, entries: [SLOT as never] },
    });
    const slot = `[\n${ENTRY_INDENT}${JSON.stringify(SLOT)}\n    ]`;
    const at = frame.indexOf(slot);
    const before = frame.slice(0, at);
    const after = frame.slice(at + slot.length);
    this.#close = Buffer.from(`\n    ]${after}`);
    this.#emptyOpenAt = Buffer.byteLength(before);
    const whole = Buffer.from(serializeCassette(cassette));
    this.#closeAt = this.#count === 0 ? undefined : whole.byteLength - this.#close.byteLength;
    try {
      mkdirSync(dirname(this.#target), { recursive: true });
    } catch (error) {
      throw new CassetteError(file, `cannot be written (${(error as Error).message})`);
    }
    writeFileAtomically(file, whole);
  }

  /** How many exchanges the cassette holds. */
  get size(): number {
    return this.#count;
  }

  /** Adds a finished exchange; it is appended to the file soon after (see `flush`). */
  add(entry: CassetteEntry): void {
    this.#count++;
    this.#pending.push(entryBytes(entry));
    this.#writing ??= this.#drain();
  }

  /** Resolves once every added exchange is on disk; rejects if a write failed. */
  async flush(): Promise<void> {
    while (this.#writing) await this.#writing;
    if (this.#failure) throw this.#failure;
  }

  /** Appends what is pending, in one write per turn, until nothing is. */
  async #drain(): Promise<void> {
    try {
      while (this.#pending.length > 0 && !this.#failure) {
        const entries = this.#pending;
        this.#pending = [];
        const first = this.#closeAt === undefined;
        const pieces: Buffer[] = [];
        for (const [i, entry] of entries.entries()) {
          pieces.push(i === 0 && first ? FIRST : SEPARATOR, entry);
        }
        const added = pieces.reduce((sum, piece) => sum + piece.byteLength, 0);
        // The first entry replaces the `]` of `[]`; any later one the closing brackets.
        const at = first ? this.#emptyOpenAt + 1 : this.#closeAt!;
        await writeAt(this.#target, Buffer.concat([...pieces, this.#close]), at);
        this.#closeAt = at + added;
      }
    } catch (error) {
      this.#failure = new CassetteError(
        this.file,
        `cannot be written (${(error as Error).message})`,
      );
    } finally {
      this.#writing = undefined;
    }
  }
}

/** Writes `bytes` into `file` at `position`, all of them (a short write goes on where it stopped). */
async function writeAt(file: string, bytes: Buffer, position: number): Promise<void> {
  const handle = await open(file, "r+");
  try {
    let done = 0;
    while (done < bytes.byteLength) {
      const { bytesWritten } = await handle.write(
        bytes,
        done,
        bytes.byteLength - done,
        position + done,
      );
      done += bytesWritten;
    }
  } finally {
    await handle.close();
  }
}

/** An entry's bytes as they stand in the cassette, indented to its place. */
function entryBytes(entry: CassetteEntry): Buffer {
  // Strings escape their line breaks: every raw one is the layout's.
  return Buffer.from(JSON.stringify(entry, null, 2).replaceAll("\n", `\n${ENTRY_INDENT}`));
}

/** The file a path names once its symbolic links are followed (itself when it is none, or absent). */
export function linkTarget(file: string): string {
  let path = file;
  for (let i = 0; i < MAX_LINKS; i++) {
    let link: string;
    try {
      link = readlinkSync(path);
    } catch {
      return path;
    }
    path = resolve(dirname(path), link);
  }
  return path;
}

function removeQuietly(file: string): void {
  try {
    unlinkSync(file);
  } catch {
    // Nothing was left behind.
  }
}

/**
 * Writes `text` to `file` atomically (a temporary file renamed over it; through a symbolic link,
 * the file it names): for rewriting a whole cassette.
 */
export function writeFileAtomically(file: string, text: string | Buffer): void {
  const target = linkTarget(file);
  const temporary = `${target}.${process.pid}.tmp`;
  try {
    writeFileSync(temporary, text);
    renameSync(temporary, target);
  } catch (error) {
    removeQuietly(temporary);
    throw new CassetteError(file, `cannot be written (${(error as Error).message})`);
  }
}
