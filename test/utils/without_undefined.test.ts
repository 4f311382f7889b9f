import { describe, expect, it } from "vitest";
import { withoutUndefined } from "../../src/utils/without_undefined.js";

describe("withoutUndefined", () => {
  it("drops only the undefined fields, keeping null, 0, false and empty strings", () => {
    const record = { a: undefined, b: null, c: 0, d: false, e: "" };
    expect(withoutUndefined(record)).toStrictEqual({ b: null, c: 0, d: false, e: "" });
    expect(record).toHaveProperty("a");
  });
});
