/** @module Request IDs for `X-Gateway-Request-Id`: a UTC timestamp, an instance tag and a counter. */

/**
 * Returns a generator of 32-digit request IDs such as `20261122080512345` + `1234567` + `00000042`:
 * sortable like the service's, unique per emulator, and cheap (the timestamp string is reused
 * within a millisecond, so the hot path is one concatenation).
 */
export function createRequestIdGenerator(clock: () => number = Date.now): () => string {
  const instance = String(Math.floor(Math.random() * 1e7)).padStart(7, "0");
  let counter = 0;
  let lastMs = Number.NaN;
  let prefix = "";
  return () => {
    const now = clock();
    if (now !== lastMs) {
      lastMs = now;
      prefix = timestamp(now) + instance;
    }
    counter = (counter + 1) % 1e8;
    return prefix + String(counter).padStart(8, "0");
  };
}

/** `yyyyMMddHHmmssSSS` in UTC. */
function timestamp(ms: number): string {
  return new Date(ms).toISOString().replace(/\D/g, "").slice(0, 17);
}
