/**
 * @module Writes a cassette as exchanges finish, each time whole and atomically (a temporary file
 * renamed over the cassette), so a recorder killed at any moment leaves a valid cassette holding
 * every exchange that had finished. Writes that pile up while one is under way become one.
 */
import { mkdirSync, renameSync, writeFileSync } from "node:fs";
import { rename, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { type Cassette, type CassetteEntry, CassetteError, serializeCassette } from "./cassette.js";

/** Appends entries to a cassette file, rewriting it atomically after each. */
export class CassetteWriter {
  readonly file: string;
  readonly #cassette: Cassette;
  readonly #temporary: string;
  #writing: Promise<void> | undefined;
  #dirty = false;
  #failure: Error | undefined;

  /** Writes `cassette` to `file` at once (creating its folder), so that the file is valid from the start. */
  constructor(file: string, cassette: Cassette) {
    this.file = file;
    this.#cassette = cassette;
    this.#temporary = `${file}.${process.pid}.tmp`;
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
    this.#dirty = true;
    this.#writing ??= this.#drain();
  }

  /** Resolves once every added exchange is on disk; rejects if a write failed. */
  async flush(): Promise<void> {
    while (this.#writing) await this.#writing;
    if (this.#failure) throw this.#failure;
  }

  async #drain(): Promise<void> {
    try {
      while (this.#dirty) {
        this.#dirty = false;
        await writeFile(this.#temporary, serializeCassette(this.#cassette));
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
