/** @module Mutation run of src/errors/ against test/errors/ and the generated errors page's test. */
import { folderConfig } from "./base.mjs";

export default folderConfig({
  name: "errors",
  mutate: ["src/errors/**/*.ts"],
  testFiles: ["test/errors/**/*.test.ts", "test/errors_doc.test.ts"],
  equivalentMutants: [
    {
      file: "src/errors/gateway_codes.ts",
      code: "code === undefined ? undefined : BY_CODE.get(code)",
      mutators: ["ConditionalExpression"],
      reason: "BY_CODE.get(undefined) is undefined too: the test only saves a lookup.",
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
