/**
 * @module Writes a cassette as exchanges finish, each time whole and atomically (a temporary file
 * renamed over the cassette), so a recorder killed at any moment leaves a valid cassette holding
 * every exchange that had finished. Writes that pile up while one is under way become one.
 */
import { mkdirSync, renameSync, writeFileSync } from "node:fs";
import { rename, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { type Cassette, type CassetteEntry, CassetteError, serializeCassette } from "./cassette.js";

/** Where the entries go in the text of the cassette without them (an impossible entry). */
const SLOT = "\u0000entries\u0000";
/** Each entry opens at six spaces: inside `{ "log": { "entries": [`. */
const ENTRY_INDENT = "      ";

/** Appends entries to a cassette file, rewriting it atomically after each. */
export class CassetteWriter {
  readonly file: string;
  readonly #cassette: Cassette;
  readonly #temporary: string;
  /** The cassette's text around its entries, and each entry's text: written once, joined each time. */
  readonly #frame: [string, string];
  readonly #entries: string[];
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
    this.#frame = [frame.slice(0, at), frame.slice(at + slot.length)];
    this.#entries = cassette.log.entries.map(entryText);
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
    this.#entries.push(entryText(entry));
    this.#dirty = true;
    this.#writing ??= this.#drain();
  }

  /** Resolves once every added exchange is on disk; rejects if a write failed. */
  async flush(): Promise<void> {
    while (this.#writing) await this.#writing;
    if (this.#failure) throw this.#failure;
  }

  /**
   * `serializeCassette(cassette)`, without serialising again the entries already written: a
   * long recording rewrites its file after every exchange, and this keeps each rewrite cheap.
   */
  #text(): string {
    const [before, after] = this.#frame;
    const entries = this.#entries;
    const list =
      entries.length === 0
        ? "[]"
        : `[\n${ENTRY_INDENT}${entries.join(`,\n${ENTRY_INDENT}`)}\n    ]`;
    return before + list + after;
  }

  async #drain(): Promise<void> {
    try {
      while (this.#dirty) {
        this.#dirty = false;
        await writeFile(this.#temporary, this.#text());
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

/** An entry's text as it stands in the cassette, indented to its place. */
function entryText(entry: CassetteEntry): string {
  // Strings escape their line breaks: every raw one is the layout's.
  return JSON.stringify(entry, null, 2).replaceAll("\n", `\n${ENTRY_INDENT}`);
}
