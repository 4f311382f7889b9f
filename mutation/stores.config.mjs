/** @module Mutation run of src/stores/ against test/stores/. */
import { folderConfig } from "./base.mjs";

export default folderConfig({
  name: "stores",
  mutate: ["src/stores/**/*.ts"],
  testFiles: ["test/stores/**/*.test.ts"],
  equivalentMutants: [],
});
