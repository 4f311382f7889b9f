/** The emulator's one tokeniser and stemmer, read alike by the chat model, embeddings and rerank. */
import { describe, expect, it } from "vitest";
import { keywords, stem, terms } from "../../../src/emulator/model/terms.js";

describe("stem", () => {
  it.each([
    [["volcano", "volcanoes", "volcanic"], "volcan"],
    [["eruption", "erupted", "erupts"], "erupt"],
    [["release", "released", "releases", "releasing"], "releas"],
    [["city", "cities"], "city"],
    [["search", "searching", "searches"], "search"],
    [["govern", "governed", "government"], "govern"],
    [["economy", "economic", "economics"], "econom"],
    [["run", "running"], "run"],
  ])("brings the forms %j to one stem", (forms, expected) => {
    expect(forms.map(stem)).toEqual(forms.map(() => expected));
  });

  it("leaves words that only look inflected alone", () => {
    expect(["status", "analysis", "glass", "gas", "string", "shed"].map(stem)).toEqual([
      "status",
      "analysis",
      "glass",
      "gas",
      "string",
      "shed",
    ]);
  });
});

describe("terms", () => {
  it("keeps topic words in order with their repeats, lower-cased and stemmed", () => {
    expect(terms("The VOLCANOES erupted; the volcano erupts.")).toEqual([
      "volcan",
      "erupt",
      "volcan",
      "erupt",
    ]);
    expect([...keywords("What do volcanoes release?")]).toEqual(["volcan", "releas"]);
  });

  it("reads a caller's words that name Object's own members as plain words", () => {
    // "constructor" once found Object.prototype.constructor among the synonyms: a function in
    // place of a word, and a 500 from the embeddings route.
    const found = terms("Which constructor calls toString, valueOf and __proto__?");
    expect(found).toEqual(["constructor", "call", "string", "valu", "prot"]);
    expect(found.every((term) => typeof term === "string")).toBe(true);
  });
});
