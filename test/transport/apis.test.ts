/** The API table: what other layers derive from its rows. */
import { describe, expect, expectTypeOf, it } from "vitest";
import { APIS, type Api, type CheckedApi } from "../../src/transport/apis.js";

type RowsWithCheckTitle = {
  [K in Api]: (typeof APIS)[K] extends { checkTitle: string } ? K : never;
}[Api];

describe("APIS", () => {
  it("names in CheckedApi (diagnose's check IDs) exactly the APIs whose row has a checkTitle", () => {
    // Checked by the compiler (npm run typecheck), and at run time below.
    expectTypeOf<CheckedApi>().toEqualTypeOf<RowsWithCheckTitle>();
    const titled = Object.entries(APIS)
      .filter(([, row]) => "checkTitle" in row)
      .map(([api]) => api);
    expect(titled).toEqual(["embeddings", "rerank"] satisfies CheckedApi[]);
  });
});
