/** @module Mutation run of src/transport/ against test/transport/. */
import { folderConfig } from "./base.mjs";

export default folderConfig({
  name: "transport",
  mutate: ["src/transport/**/*.ts"],
  testFiles: ["test/transport/**/*.test.ts"],
  equivalentMutants: [],
});
