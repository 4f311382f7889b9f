/** @module Mutation run of src/errors/ against test/errors/ and the generated errors page's test. */
import { folderConfig } from "./base.mjs";

export default folderConfig({
  name: "errors",
  mutate: ["src/errors/**/*.ts"],
  testFiles: ["test/errors/**/*.test.ts", "test/errors_doc.test.ts"],
  equivalentMutants: [
    {
      file: "src/errors/mapper.ts",
      code: "{ return {}; }",
      mutators: ["BlockStatement"],
      reason:
        "Without the early return the unparsed text is still a string, and the next line returns {} for anything that is not an object.",
    },
    {
      file: "src/errors/mapper.ts",
      code: "Number(value.trim())",
      mutators: ["MethodExpression"],
      reason:
        "Number() ignores the white space around a number itself: trimming first changes nothing.",
    },
    {
      file: "src/errors/mapper.ts",
      code: "Number.isFinite(seconds) && seconds >= 0",
      mutators: ["EqualityOperator"],
      reason:
        "`Retry-After: 0` read as a date instead of seconds is year 2000 in V8, a wait of max(0, past) = 0: the same 0 ms.",
    },
    {
      file: "src/errors/mapper.ts",
      code: 'failure.kind === "network" ? networkCause(failure.cause) : undefined',
      mutators: ["ConditionalExpression"],
      reason:
        "Only the network rows read the cause (their notReady fact and their {cause}, {fix}, {causeCode} parts): a cause computed for another kind is never used.",
    },
    {
      file: "src/errors/mapper.ts",
      code: 'failure.kind === "network" && failure.afterResponse === true',
      mutators: ["ConditionalExpression"],
      reason:
        "Only a network failure has afterResponse: for any other kind the second test is false anyway.",
    },
    {
      file: "src/errors/mapper.ts",
      code: 'failure.kind === "timeout" && failure.phase === "idle"',
      mutators: ["ConditionalExpression"],
      reason: "Only a timeout has a phase: for any other kind the second test is false anyway.",
    },
    {
      file: "src/errors/mapper.ts",
      code: 'failure.kind === "redirect" && failure.crossOrigin !== undefined',
      mutators: ["ConditionalExpression"],
      reason:
        "Only a redirect has crossOrigin: for any other kind the second test is false anyway.",
    },
    {
      file: "src/errors/mapper.ts",
      code: '{ return ""; }',
      mutators: ["BlockStatement"],
      reason:
        'An unreadable Location gives no part either way: undefined and "" both fill {lastTo} with nothing.',
    },
    {
      file: "src/errors/input_wording.ts",
      code: 'row.summary.replace(/\\.$/, "")',
      mutators: ["Regex"],
      reason:
        "Only ContentFilterError reaches here, whose summary has one full stop, at its end: unanchored, the pattern finds the same one.",
    },
    {
      file: "src/errors/mapper.ts",
      code: "default: return undefined;",
      mutators: ["ConditionalExpression"],
      reason: "The default case returns undefined, as falling out of the switch does.",
    },
    {
      file: "src/errors/mapper.ts",
      code: 'failure.kind === "http"\n    ? failure.body\n    : failure.kind === "stream-error"\n      ? failure.payload\n      : ""',
      mutators: ["ConditionalExpression", "StringLiteral"],
      reason:
        "Only http and stream-error failures carry a body; any other value read here (undefined, or a string that is not JSON) parses to the same empty body.",
    },
    {
      file: "src/errors/mapper.ts",
      code: 'failure.kind === "still-pending" && errors.InferenceServiceError.isInstance(failure.last)',
      mutators: ["ConditionalExpression"],
      reason:
        "Only a still-pending failure has `last`: for any other kind the second test is false anyway. (Dropping the test whole is killed: a `last` that is not ours has no requestIds.)",
    },
    {
      file: "src/errors/mapper.ts",
      code: '(failure.kind === "stream-error" ? failure.partialOutput : undefined) ?? ctx.partialOutput',
      mutators: ["ConditionalExpression"],
      reason:
        "Only a stream-error failure has partialOutput: for any other kind it is undefined anyway.",
    },
    {
      file: "src/errors/mapper.ts",
      code: 'failure.kind === "still-pending" ? failure.last : undefined',
      mutators: ["ConditionalExpression"],
      reason: "Only a still-pending failure has `last`: for any other kind it is undefined anyway.",
    },
    {
      file: "src/errors/mapper.ts",
      code: "errors.InferenceServiceError.isInstance(error)",
      mutators: ["ConditionalExpression"],
      reason:
        "Our errors are built with their secrets already redacted: the copy check below finds nothing to hide and returns the same object.",
    },
    {
      file: "src/errors/mapper.ts",
      code: 'typeof error !== "object" || error === null || isAbortError(error)',
      mutators: ["ConditionalExpression", "LogicalOperator"],
      reason:
        "An early return only, but for the SDK's abort (an APIError, tested): anything else that is not an object falls through every test below and is returned as it is.",
    },
    {
      file: "src/errors/mapper.ts",
      code: '{ kind: "timeout", phase: "response", cause: error }',
      mutators: ["StringLiteral"],
      reason:
        'The mapper only asks whether a timeout\'s phase is "idle": any other value reads the same.',
    },
    {
      file: "src/errors/mapper.ts",
      code: "headers?.get(REQUEST_ID_HEADER)?.trim()",
      mutators: ["MethodExpression"],
      reason:
        "Headers strips the white space around a value when it is set: get() never returns any to trim.",
    },
    {
      file: "src/errors/mapper.ts",
      code: "body.status !== undefined",
      mutators: ["ConditionalExpression"],
      reason: "`undefined >= 300` is false: without the test a missing status is still no status.",
    },
    {
      file: "src/errors/mapper.ts",
      code: 'e.message ?? ""',
      mutators: ["StringLiteral"],
      reason:
        "An error without a message is read as text naming no network failure: any other such text (Stryker's) gives the same answer.",
    },
    {
      file: "src/errors/available_models.ts",
      code: "start < a.length && start < b.length && a[start] === b[start]",
      mutators: ["ConditionalExpression", "EqualityOperator", "LogicalOperator"],
      reason:
        "A bound that lets `start` run past the end of one ID compares a character with undefined, never equal: the loop stops where it did (equal IDs never get here).",
    },
    {
      file: "src/errors/available_models.ts",
      code: "end < a.length - start && end < b.length - start",
      mutators: [
        "ConditionalExpression",
        "EqualityOperator",
        "ArithmeticOperator",
        "LogicalOperator",
      ],
      reason:
        "A suffix that runs into the shared prefix empties a differing part, and an empty part is accepted whatever the other's is: the same answer (checked against the original on random IDs). Without the bounds the loop still ends: the IDs differ, so the shorter one runs out first and undefined never equals a character.",
    },
    {
      file: "src/errors/available_models.ts",
      code: "end < b.length - start",
      mutators: ["ConditionalExpression", "EqualityOperator", "ArithmeticOperator"],
      reason:
        "As for the other ID's bound: the parts compared after it give the same answer (checked against the original on random IDs).",
    },
    {
      file: "src/errors/available_models.ts",
      code: "Math.abs(a.length - b.length) > limit",
      mutators: ["ConditionalExpression"],
      reason:
        "Speed only: without the early return the table is filled and its result capped at limit + 1, the same number.",
    },
    {
      file: "src/errors/available_models.ts",
      code: "before: number[] = []",
      mutators: ["ArrayDeclaration"],
      reason:
        "The first value of `before` is never read: a transposition needs i > 1, by which time it holds a row.",
    },
    {
      file: "src/errors/available_models.ts",
      code: "i > 1 && j > 1",
      mutators: ["ConditionalExpression", "EqualityOperator", "LogicalOperator"],
      reason:
        "The guard keeps index -1 out of the comparisons, but a[-1] and b[-1] are undefined and never equal a character: the transposition test fails either way.",
    },
    {
      file: "src/errors/available_models.ts",
      code: "best > limit && previousBest > limit",
      mutators: ["ConditionalExpression", "LogicalOperator", "EqualityOperator"],
      reason:
        "Speed only: once a row is over the limit every later row is too (a transposition adds one to a cell two rows up), so ending early or late gives the same capped result.",
    },
    {
      file: "src/errors/mapper.ts",
      code: "secrets: readonly string[] = []",
      mutators: ["ArrayDeclaration"],
      reason:
        "A default list of one made-up secret only redacts text that holds it; no error does.",
    },
    {
      file: "src/errors/errors.ts",
      code: "init.secrets ?? []",
      mutators: ["ArrayDeclaration"],
      reason:
        "A default list of one made-up secret only redacts text that holds it; no error does.",
    },
    {
      file: "src/errors/gateway_codes.ts",
      code: "if (code === undefined) return undefined;",
      mutators: ["ConditionalExpression"],
      reason: "BY_CODE.get(undefined) is undefined too: the test only saves a lookup.",
    },
    {
      file: "src/errors/gateway_codes.ts",
      code: 'row.message.pattern.test(message ?? "")',
      mutators: ["StringLiteral"],
      reason:
        "No row's message pattern matches a made-up text any more than the empty one: a missing message matches no row that asks for one either way.",
    },
    {
      file: "src/errors/network_cause.ts",
      code: "code === undefined ? undefined : CAUSES.find(([pattern]) => pattern.test(code))",
      mutators: ["ConditionalExpression"],
      reason:
        "No pattern of CAUSES matches the text `undefined` that RegExp.test makes of a missing code: the test only saves the lookup.",
    },
  ],
});
