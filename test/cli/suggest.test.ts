import { describe, expect, it } from "vitest";
import { closestName } from "../../src/cli/suggest.js";
import { editDistance } from "../../src/errors/available_models.js";

const FLAGS = ["base-url", "api-key", "model", "service-name", "tenant-id", "job-alias", "json"];

describe("editDistance", () => {
  it.each([
    ["model", "model", 0],
    ["modle", "model", 1],
    ["bse-url", "base-url", 1],
    ["kitten", "sitting", 3],
    ["", "abc", 3],
    ["caht", "chat", 1],
    ["ca", "abc", 3],
  ])("%s → %s is %i", (a, b, distance) => {
    expect(editDistance(a, b)).toBe(distance);
    expect(editDistance(b, a)).toBe(distance);
  });
});

describe("closestName", () => {
  it.each([
    ["bse-url", "base-url"],
    ["base-ulr", "base-url"],
    ["baseURL", "base-url"],
    ["api_key", "api-key"],
    ["apikey", "api-key"],
    ["modl", "model"],
    ["service", "service-name"],
    ["tenant", "tenant-id"],
  ])("suggests %s → %s", (input, expected) => {
    expect(closestName(input, FLAGS)).toBe(expected);
  });

  it.each([["colour"], ["verbose"], ["x"], ["ba"], [""]])("suggests nothing for %j", (input) => {
    expect(closestName(input, FLAGS)).toBeUndefined();
  });
});
