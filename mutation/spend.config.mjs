/** @module Mutation run of src/spend/ against test/spend/. */
import { folderConfig } from "./base.mjs";

export default folderConfig({
  name: "spend",
  mutate: ["src/spend/**/*.ts"],
  testFiles: ["test/spend/**/*.test.ts"],
  equivalentMutants: [
    {
      file: "src/spend/estimate.ts",
      code: 'typeof max === "number"',
      mutators: ["ConditionalExpression"],
      reason:
        "Number.isFinite is false for anything that is not a number (it converts nothing): without the typeof test a string or null is still refused.",
    },
    {
      file: "src/spend/estimate.ts",
      code: 'typeof n === "number"',
      mutators: ["ConditionalExpression"],
      reason:
        "Number.isInteger is false for anything that is not a number (it converts nothing): without the typeof test a string or null is still one choice.",
    },
    {
      file: "src/spend/estimate.ts",
      code: "n > 1",
      mutators: ["EqualityOperator"],
      reason: "n of 1 is one choice either way: `n >= 1` returns the same 1.",
    },
    {
      file: "src/spend/rate_limiter.ts",
      code: "accepted > 0",
      mutators: ["ConditionalExpression", "EqualityOperator"],
      reason:
        "Deleting a count of 0 changes nothing: a missing count is read as 0. The test only saves a delete.",
    },
    {
      file: "src/spend/spend_guard.ts",
      code: "handlers ?? []",
      mutators: ["ArrayDeclaration"],
      reason:
        "A list that holds a string in place of no handlers still holds no spend guard: the same empty answer.",
    },
    {
      file: "src/spend/call_meter.ts",
      code: "this.#reservations.length === 0",
      mutators: ["ConditionalExpression"],
      reason:
        "Speed only: with no reservations the settles below are an empty Promise.all, and no cost is reported.",
    },
    {
      file: "src/spend/usage_records.ts",
      code: "WEIGHT[next] > WEIGHT[so]",
      mutators: ["EqualityOperator"],
      reason:
        "Two settlements of equal weight are the same settlement: `>=` returns `next`, which is `so`.",
    },
    {
      file: "src/spend/usage_tracker.ts",
      code: "++this.#reservations",
      mutators: ["UpdateOperator"],
      reason:
        "The count only makes each hold's ID unique within the run: counting down gives unique IDs too.",
    },
    {
      file: "src/spend/usage_tracker.ts",
      code: "this.#records.length > this.#maxRecords",
      mutators: ["ConditionalExpression", "EqualityOperator"],
      reason:
        "Speed only: at or under maxRecords the splice below removes length − maxRecords ≤ 0 records, none.",
    },
    {
      file: "src/spend/usage_tracker.ts",
      code: "globalThis.performance?.now()",
      mutators: ["OptionalChaining"],
      reason:
        "Every runtime the tests run in (and the package supports) has `performance`: the fallback to Date.now is for others.",
    },
    {
      file: "src/spend/estimate.ts",
      code: "value === undefined",
      mutators: ["ConditionalExpression"],
      reason:
        'JSON.stringify(undefined) is undefined, read as "" just below: 0 tokens with or without the early return.',
    },
    {
      file: "src/spend/usage.ts",
      code: "Array.isArray(output?.generations) ? output.generations.flat() : []",
      mutators: ["ArrayDeclaration"],
      reason:
        "A string in place of no generations has no message, usage or request ID to read: the same nothing.",
    },
    {
      file: "src/spend/usage.ts",
      code: 'typeof n === "number"',
      mutators: ["ConditionalExpression"],
      reason:
        "Number.isFinite is false for anything that is not a number (it converts nothing): the typeof test changes nothing.",
    },
    {
      file: "src/spend/usage.ts",
      code: 'typeof value === "number"',
      mutators: ["ConditionalExpression"],
      reason:
        "Number.isFinite is false for anything that is not a number (it converts nothing): the typeof test changes nothing.",
    },
    {
      file: "src/spend/usage_tracker.ts",
      code: "how.requestId !== undefined",
      mutators: ["ConditionalExpression"],
      reason:
        "The record is built without its undefined fields (withoutUndefined): a requestId of undefined is no field either way.",
    },
    {
      file: "src/spend/with_usage.ts",
      code: "!(provider.getInstance() instanceof MockAsyncLocalStorage)",
      mutators: ["ConditionalExpression"],
      reason:
        "Speed only: LangChain's initializeGlobalInstance keeps a storage already set, so building another one changes nothing.",
    },
  ],
});
