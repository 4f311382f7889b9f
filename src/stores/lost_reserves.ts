/**
 * @module `LostReserves`: the budget reservations whose reserve got no answer (a timeout, a
 * dropped connection), released so that none is charged for a call never sent. Such a reserve
 * may still run on Redis — when a paused node wakes, or on the replica promoted in its place —
 * and its hold would lock the amount until its lease ends, then count as spent in full. A
 * release goes out at once (on the same connection, right behind the reserve), and again, less
 * and less often, until one is answered or the reservation's lease has ended (by then the hold,
 * if it exists, has counted as spent: the lease bounds what a lost release can lock). Releases
 * are idempotent, so one that Redis ran without answering does no harm when sent again.
 */

/** Sends one release of `ids`, all of budget `key`; rejects when it got no answer. */
export type SendRelease = (key: string, ids: string[]) => Promise<unknown>;

/** The releases of one budget not yet answered: ID → end of its lease (epoch ms). */
interface Pending {
  ids: Map<string, number>;
  /** Retries that failed in a row: each doubles the wait before the next. */
  failures: number;
  timer?: ReturnType<typeof setTimeout>;
}

/** At most this many IDs in one release, so one script never keeps Redis busy for long. */
const MAX_IDS = 100;
/** The longest wait between two retries. */
const MAX_RETRY_MS = 60_000;

/** Releases of lost reserves, sent now and retried until answered (see the module). */
export class LostReserves {
  readonly #send: SendRelease;
  readonly #retryMs: number;
  readonly #pending = new Map<string, Pending>();
  #closed = false;

  /** `retryMs`: the wait before the first retry (then 2×, 4×, … up to a minute). */
  constructor(send: SendRelease, retryMs: number) {
    this.#send = send;
    this.#retryMs = Math.min(retryMs, MAX_RETRY_MS);
  }

  /**
   * Releases reservation `id` of budget `key`: sent in this very tick, so it follows the reserve
   * on its connection; retried until `until` should it fail. Pending until it lands, so that
   * `close` sends it again should its first attempt still be under way.
   */
  add(key: string, id: string, until: number): void {
    if (this.#closed) return;
    const pending = this.#pendingOf(key);
    pending.ids.set(id, until);
    this.#send(key, [id]).then(
      () => this.#landed(key, pending, [id]),
      () => this.#schedule(key, pending),
    );
  }

  /** The releases not yet answered, over every budget. */
  get size(): number {
    let count = 0;
    for (const pending of this.#pending.values()) count += pending.ids.size;
    return count;
  }

  /** One last attempt at every release still pending, then no more (the store is closing). */
  async close(): Promise<void> {
    this.#closed = true;
    const all = [...this.#pending];
    this.#pending.clear();
    await Promise.all(
      all.map(async ([key, pending]) => {
        clearTimeout(pending.timer);
        const ids = live(pending);
        for (let from = 0; from < ids.length; from += MAX_IDS) {
          await this.#send(key, ids.slice(from, from + MAX_IDS)).catch(() => {});
        }
      }),
    );
  }

  #pendingOf(key: string): Pending {
    let pending = this.#pending.get(key);
    if (pending === undefined) {
      pending = { ids: new Map(), failures: 0 };
      this.#pending.set(key, pending);
    }
    return pending;
  }

  /** Forgets the releases that landed, and the budget once none is left. */
  #landed(key: string, pending: Pending, ids: string[]): void {
    for (const id of ids) pending.ids.delete(id);
    this.#forgetIfDone(key);
  }

  /**
   * Forgets budget `key` once no release of it is left. Looked up afresh: the entry a caller
   * holds may be one forgotten already (an attempt that lands after `close`, or after its
   * budget emptied and filled again).
   */
  #forgetIfDone(key: string): void {
    if (this.#pending.get(key)?.ids.size === 0) this.#pending.delete(key);
  }

  #schedule(key: string, pending: Pending): void {
    if (this.#closed || pending.timer !== undefined) return;
    const delay = Math.min(this.#retryMs * 2 ** pending.failures, MAX_RETRY_MS);
    pending.timer = setTimeout(() => {
      pending.timer = undefined;
      void this.#retry(key, pending);
    }, delay);
    // A release still waiting never keeps the process alive: the lease covers it.
    (pending.timer as { unref?: () => void }).unref?.();
  }

  /** Sends the budget's releases, 100 at a time while Redis answers; waits again on a failure. */
  async #retry(key: string, pending: Pending): Promise<void> {
    for (let ids = live(pending); ids.length > 0 && !this.#closed; ids = live(pending)) {
      const batch = ids.slice(0, MAX_IDS);
      try {
        await this.#send(key, batch);
      } catch {
        pending.failures++;
        this.#schedule(key, pending);
        return;
      }
      pending.failures = 0;
      this.#landed(key, pending, batch);
    }
    this.#forgetIfDone(key);
  }
}

/** The IDs of `pending` whose lease has not ended; forgets the others. */
function live(pending: Pending): string[] {
  const now = Date.now();
  for (const [id, until] of pending.ids) if (until <= now) pending.ids.delete(id);
  return [...pending.ids.keys()];
}
