/** @module Mutation run of src/stores/ against test/stores/. */
import { folderConfig } from "./base.mjs";

export default folderConfig({
  name: "stores",
  mutate: ["src/stores/**/*.ts"],
  // Not the Redis Cluster file: each run of it starts 6 servers and stops and kills masters
  // (about 25 s); the single-server and fake-client tests reach the same code.
  testFiles: [
    "test/stores/lost_reserves.test.ts",
    "test/stores/memory_store.test.ts",
    "test/stores/pacing.test.ts",
    "test/stores/redis_store.test.ts",
    "test/stores/usage_store.test.ts",
  ],
  equivalentMutants: [
    {
      file: "src/stores/pacing.ts",
      code: "requestHoles: []",
      mutators: ["ArrayDeclaration"],
      reason:
        "A fresh state's one hole would be a string, whose [1] is never > now: the first take filters it out, and no slot is given back before one is taken.",
    },
    {
      file: "src/stores/pacing.ts",
      code: "tokenHoles: []",
      mutators: ["ArrayDeclaration"],
      reason:
        "A fresh state's one hole would be a string, whose [1] is never > now: the first take filters it out, and no slot is given back before one is taken.",
    },
    {
      file: "src/stores/pacing.ts",
      code: "state.requestHoles = []",
      mutators: ["ArrayDeclaration"],
      reason:
        "A string left as a hole by a cut is filtered out by the next take (its [1] is never > now), and only a slot taken after the cut can be given back in the new epoch.",
    },
    {
      file: "src/stores/pacing.ts",
      code: "state.tokenHoles = []",
      mutators: ["ArrayDeclaration"],
      reason:
        "A string left as a hole by a cut is filtered out by the next take (its [1] is never > now), and only a slot taken after the cut can be given back in the new epoch.",
    },
    {
      file: "src/stores/pacing.ts",
      code: "if (tokenRate !== undefined) start = Math.max(start, state.tokenTat);",
      mutators: ["ConditionalExpression"],
      reason:
        "With no token rate the token bucket's end is 0 or a cut's pause end, which start already waits out (start >= pausedUntil).",
    },
    {
      file: "src/stores/pacing.ts",
      code: "state.requestHoles = state.requestHoles.filter((hole) => hole[1] > now)",
      mutators: ["MethodExpression"],
      reason:
        "Speed only: chaining back through a hole that ended before now gives a bucket end before now, which start = max(now, …) ignores; expired holes start before live ones, so the cap drops them first.",
    },
    {
      file: "src/stores/pacing.ts",
      code: "state.tokenHoles = state.tokenHoles.filter((hole) => hole[1] > now)",
      mutators: ["MethodExpression"],
      reason:
        "Speed only: chaining back through a hole that ended before now gives a bucket end before now, which start = max(now, …) ignores; expired holes start before live ones, so the cap drops them first.",
    },
    {
      file: "src/stores/lost_reserves.ts",
      code: "(pending.timer as { unref?: () => void }).unref?.()",
      mutators: ["OptionalChaining"],
      reason:
        "A Node timer always has unref(), so the call never meets undefined here; the ?. is for runtimes whose setTimeout answers a number, which the tests do not run on.",
    },
    {
      file: "src/stores/redis_store.ts",
      code: '"releaseReserves"',
      mutators: ["StringLiteral"],
      reason:
        "The operation's name reaches only the timeout error of a release, which LostReserves catches and drops: no caller, message or report shows it.",
    },
    {
      file: "src/stores/redis_store.ts",
      code: 'value === undefined ? "" : String(value)',
      mutators: ["StringLiteral"],
      reason:
        "The Lua scripts read an absent rate with tonumber(), which gives nil for any text that is not a number, empty or not.",
    },
  ],
});
