/**
 * @module A Stryker ignorer that reads the ignore list of a mutation config (`equivalentMutants`):
 * each entry names a file, an exact piece of its code, the mutators to skip there and why. On
 * entering a file the ignorer marks each listed node with the same `Stryker disable next-line`
 * directive a comment in the source would be, so the list lives beside the config, not in src/.
 */

/**
 * @typedef {object} EquivalentMutant
 * @property {string} file the source file, from the repository's root (`src/spend/estimate.ts`)
 * @property {string} code the node's exact source text (runs of white space count as one space)
 * @property {string[]} mutators the Stryker mutators to skip on the node's line (`EqualityOperator`)
 * @property {string} reason why those mutants change nothing observable
 */

const squash = (text) => text.replace(/\s+/g, " ").trim();

/** The note a mutant ignored by `entry` carries in the report (`statusReason`). */
export function ignoreNote(entry) {
  return `equivalent: ${squash(entry.reason)}`;
}

class EquivalentMutantsIgnorer {
  static inject = ["options"];

  /** @param {{ equivalentMutants?: EquivalentMutant[] }} options */
  constructor(options) {
    this.entries = options.equivalentMutants ?? [];
  }

  shouldIgnore(path) {
    if (!path.isProgram()) return undefined;
    const filename = (path.hub?.file?.opts?.filename ?? "").replaceAll("\\", "/");
    const entries = this.entries.filter((entry) => filename.endsWith(`/${entry.file}`));
    if (entries.length === 0) return undefined;
    path.traverse({
      enter(node) {
        if (node.node.start == null) return;
        const source = squash(node.getSource());
        for (const entry of entries) {
          if (source !== squash(entry.code)) continue;
          node.node.leadingComments = [
            ...(node.node.leadingComments ?? []),
            {
              type: "CommentBlock",
              value: ` Stryker disable next-line ${entry.mutators.join(",")}: ${ignoreNote(entry)} `,
            },
          ];
        }
      },
    });
    return undefined;
  }
}

export const strykerPlugins = [
  { kind: "Ignore", name: "equivalent-mutants", injectableClass: EquivalentMutantsIgnorer },
];

export const strykerValidationSchema = {
  $schema: "http://json-schema.org/draft-07/schema#",
  type: "object",
  properties: {
    equivalentMutants: {
      description: "Mutants that change nothing observable, each with the reason",
      type: "array",
      items: {
        type: "object",
        required: ["file", "code", "mutators", "reason"],
        additionalProperties: false,
        properties: {
          file: { type: "string" },
          code: { type: "string" },
          mutators: { type: "array", items: { type: "string" }, minItems: 1 },
          reason: { type: "string", minLength: 1 },
        },
      },
    },
  },
};
