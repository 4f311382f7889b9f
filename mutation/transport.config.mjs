/**
 * @module Mutation run of src/transport/ against test/transport/, with the API folders' answer
 * checks (which came out of transport/answer.ts) against their tests.
 */
import { folderConfig } from "./base.mjs";

export default folderConfig({
  name: "transport",
  mutate: ["src/transport/**/*.ts", "src/apis/*/answer.ts"],
  testFiles: ["test/transport/**/*.test.ts", "test/apis/*/answer.test.ts"],
  equivalentMutants: [
    {
      file: "src/transport/event_boundaries.ts",
      code: "this.#lineLength >= TELLING",
      mutators: ["BlockStatement"],
      reason:
        "Speed only: without the skip, the rest of a long line is read byte by byte, which ends the line at the same byte and never matches [DONE] past its length.",
    },
    {
      file: "src/transport/event_boundaries.ts",
      code: "this.#lineLength += end - i",
      mutators: ["ArithmeticOperator"],
      reason:
        "A line's length is only compared with 0, 4 and 12, which a line long enough to be skipped has passed whichever way the skipped bytes are counted.",
    },
    {
      file: "src/transport/event_boundaries.ts",
      code: "this.#doneMatched = -1",
      mutators: ["UnaryOperator"],
      reason:
        "The rest of the line is skipped to its end, so the match is not read again before the line ends: 1 or -1, it is not DONE.length.",
    },
    {
      file: "src/transport/channel.ts",
      code: "waitForReady <= 0",
      mutators: ["ConditionalExpression", "EqualityOperator"],
      reason:
        "The retry caller drops a deadline that is not positive (ServiceCaller's constructor): a deadline of 0 ms made here is no deadline there either.",
    },
    {
      file: "src/transport/channel.ts",
      code: "target.serviceName === undefined ? {} : { [SERVICE_NAME_HEADER]: target.serviceName }",
      mutators: ["ConditionalExpression"],
      reason:
        "A header whose value is undefined is dropped by the openai SDK: the hosted surface sends no Service-Name either way.",
    },
    {
      file: "src/transport/attempt_log.ts",
      code: "++this.#last",
      mutators: ["UpdateOperator"],
      reason:
        "An attempt's number is only looked up as it was given out and never sent: counting down names each attempt apart just as well.",
    },
    {
      file: "src/transport/attempt_log.ts",
      code: "id === undefined ? undefined : this.#open.get(id)",
      mutators: ["ConditionalExpression"],
      reason:
        "The check is for the type only: a map keyed by strings finds nothing under undefined either.",
    },
  ],
});
