/** @module Mutation run of src/models/reasoning/ against test/models/reasoning/. */
import { folderConfig } from "./base.mjs";

export default folderConfig({
  name: "reasoning",
  mutate: ["src/models/reasoning/**/*.ts"],
  testFiles: ["test/models/reasoning/**/*.test.ts"],
  equivalentMutants: [],
});
