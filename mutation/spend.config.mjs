/** @module Mutation run of src/spend/ against test/spend/. */
import { folderConfig } from "./base.mjs";

export default folderConfig({
  name: "spend",
  mutate: ["src/spend/**/*.ts"],
  testFiles: ["test/spend/**/*.test.ts"],
  equivalentMutants: [],
});
