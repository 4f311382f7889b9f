/** @module Mutation run of src/errors/ against test/errors/ and the generated errors page's test. */
import { folderConfig } from "./base.mjs";

export default folderConfig({
  name: "errors",
  mutate: ["src/errors/**/*.ts"],
  testFiles: ["test/errors/**/*.test.ts", "test/errors_doc.test.ts"],
  equivalentMutants: [],
});
