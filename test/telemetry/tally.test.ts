import { describe, expect, it } from "vitest";
import type { Attributes } from "../../src/telemetry/otel.js";
import { Tally } from "../../src/telemetry/tally.js";

/** What a tally reports when asked, as pairs of value and attributes. */
function observed(tally: Tally): Array<[number, Attributes | undefined]> {
  const seen: Array<[number, Attributes | undefined]> = [];
  tally.observe({ observe: (value, attributes) => seen.push([value, attributes]) });
  return seen;
}

describe("Tally", () => {
  it("reports nothing before anything is added", () => {
    expect(observed(new Tally())).toEqual([]);
  });

  it("keeps one sum per key, reported with the attributes it was first added with", () => {
    const tally = new Tally();
    const ok = { "http.response.status_code": 200 };
    tally.add(1, "ok", ok);
    tally.add(2, "ok", { ignored: true });
    tally.add(0.5, "limited", { "http.response.status_code": 429 });
    expect(observed(tally)).toEqual([
      [3, ok],
      [0.5, { "http.response.status_code": 429 }],
    ]);
  });

  it("keeps the sums between reports: a counter's cumulative value", () => {
    const tally = new Tally();
    tally.add(1, "k", {});
    expect(observed(tally)).toEqual([[1, {}]]);
    tally.add(1, "k", {});
    expect(observed(tally)).toEqual([[2, {}]]);
  });

  it("past 2,000 attribute sets, adds to one overflow set, as the SDK does", () => {
    const tally = new Tally();
    for (let i = 0; i < 2000; i++) tally.add(1, `k${i}`, { i });
    tally.add(1, "one more", { i: 2000 });
    tally.add(2, "another", { i: 2001 });
    tally.add(1, "k0", { i: 0 });
    const seen = observed(tally);
    expect(seen).toHaveLength(2001);
    expect(seen[0]).toEqual([2, { i: 0 }]);
    expect(seen.at(-1)).toEqual([3, { "otel.metric.overflow": true }]);
  });
});
