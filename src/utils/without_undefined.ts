/** @module `withoutUndefined`: a record without its undefined fields, so bodies, records and logs stay minimal. */

/** A copy without the keys whose value is `undefined`. */
export function withoutUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}
