/**
 * @module Writes a cassette as exchanges finish, each time whole and atomically (a temporary file
 * renamed over the cassette), so a recorder killed at any moment leaves a valid cassette holding
 * every exchange that had finished. Writes that pile up while one is under way become one.
 */
import { mkdirSync, renameSync, writeFileSync } from "node:fs";
import { open, rename } from "node:fs/promises";
import { dirname } from "node:path";
import { type Cassette, type CassetteEntry, CassetteError, serializeCassette } from "./cassette.js";

/** Where the entries go in the text of the cassette without them (an impossible entry). */
const SLOT = "\u0000entries\u0000";
/** Each entry opens at six spaces: inside `{ "log": { "entries": [`. */
const ENTRY_INDENT = "      ";
/** Between two entries. */
const SEPARATOR = Buffer.from(`,\n${ENTRY_INDENT}`);
/** Buffers per `writev` call, well under the system's limit on one call's pieces. */
const WRITEV_BATCH = 512;

/** Appends entries to a cassette file, rewriting it atomically after each. */
export class CassetteWriter {
  readonly file: string;
  readonly #cassette: Cassette;
  readonly #temporary: string;
  /**
   * The cassette's bytes around its entries (with entries, and without), and each entry's bytes:
   * encoded once, then handed to the disk as they are on every rewrite, so a long recording's
   * rewrites cost the event loop next to nothing.
   */
  readonly #frame: { open: Buffer; close: Buffer; empty: Buffer };
  readonly #entries: Buffer[];
  #writing: Promise<void> | undefined;
  #dirty = false;
  #failure: Error | undefined;

  /** Writes `cassette` to `file` at once (creating its folder), so that the file is valid from the start. */
  constructor(file: string, cassette: Cassette) {
    this.file = file;
    this.#cassette = cassette;
    this.#temporary = `${file}.${process.pid}.tmp`;
    const frame = serializeCassette({
      ...cassette,
      log: { ...cassette.log, entries: [SLOT as never] },
    });
    const slot = `[\n${ENTRY_INDENT}${JSON.stringify(SLOT)}\n    ]`;
    const at = frame.indexOf(slot);
    const [before, after] = [frame.slice(0, at), frame.slice(at + slot.length)];
    this.#frame = {
      open: Buffer.from(`${before}[\n${ENTRY_INDENT}`),
      close: Buffer.from(`\n    ]${after}`),
      empty: Buffer.from(`${before}[]${after}`),
    };
    this.#entries = cassette.log.entries.map(entryBytes);
    try {
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(this.#temporary, serializeCassette(cassette));
      renameSync(this.#temporary, file);
    } catch (error) {
      throw new CassetteError(file, `cannot be written (${(error as Error).message})`);
    }
  }

  /** How many exchanges the cassette holds. */
  get size(): number {
    return this.#cassette.log.entries.length;
  }

  /** Adds a finished exchange; the file is rewritten soon after (see `flush`). */
  add(entry: CassetteEntry): void {
    this.#cassette.log.entries.push(entry);
    this.#entries.push(entryBytes(entry));
    this.#dirty = true;
    this.#writing ??= this.#drain();
  }

  /** Resolves once every added exchange is on disk; rejects if a write failed. */
  async flush(): Promise<void> {
    while (this.#writing) await this.#writing;
    if (this.#failure) throw this.#failure;
  }

  /** `serializeCassette(cassette)` as pieces, without encoding again the entries already written. */
  #pieces(): Buffer[] {
    const { open, close, empty } = this.#frame;
    if (this.#entries.length === 0) return [empty];
    const pieces = [open];
    this.#entries.forEach((entry, i) => {
      if (i > 0) pieces.push(SEPARATOR);
      pieces.push(entry);
    });
    pieces.push(close);
    return pieces;
  }

  /** Writes the cassette to the temporary file, piece by piece. */
  async #writeTemporary(): Promise<void> {
    const pieces = this.#pieces();
    const handle = await open(this.#temporary, "w");
    try {
      for (let i = 0; i < pieces.length; i += WRITEV_BATCH) {
        const batch = pieces.slice(i, i + WRITEV_BATCH);
        const expected = batch.reduce((sum, piece) => sum + piece.byteLength, 0);
        const { bytesWritten } = await handle.writev(batch);
        // A short write (a full disk, say): write the rest of the batch as one buffer.
        if (bytesWritten < expected)
          await handle.write(Buffer.concat(batch).subarray(bytesWritten));
      }
    } finally {
      await handle.close();
    }
  }

  async #drain(): Promise<void> {
    try {
      while (this.#dirty) {
        this.#dirty = false;
        await this.#writeTemporary();
        await rename(this.#temporary, this.file);
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

/** An entry's bytes as they stand in the cassette, indented to its place. */
function entryBytes(entry: CassetteEntry): Buffer {
  // Strings escape their line breaks: every raw one is the layout's.
  return Buffer.from(JSON.stringify(entry, null, 2).replaceAll("\n", `\n${ENTRY_INDENT}`));
}
