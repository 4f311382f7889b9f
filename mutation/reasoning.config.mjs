/** @module Mutation run of src/apis/chat/reasoning/ against test/apis/chat/reasoning/. */
import { folderConfig } from "./base.mjs";

export default folderConfig({
  name: "reasoning",
  mutate: ["src/apis/chat/reasoning/**/*.ts"],
  testFiles: ["test/apis/chat/reasoning/**/*.test.ts"],
  equivalentMutants: [
    {
      file: "src/apis/chat/reasoning/think_tags.ts",
      code: 'this.#state = "closed"',
      mutators: ["StringLiteral"],
      reason:
        "The closed state's pass is the loop's last, reached by any state that is not answer, start or reasoning: a state named otherwise is read exactly as closed, here and in end().",
    },
    {
      file: "src/apis/chat/reasoning/think_tags.ts",
      code: 'rest !== ""',
      mutators: ["StringLiteral"],
      reason:
        "Looping once more on an empty rest changes nothing: every state's pass over an empty string adds no output and breaks.",
    },
  ],
});
