/**
 * @module What an editor shows for each option on hover: the JSDoc of the properties of the
 * package's options types, read with the TypeScript compiler as a user's editor reads them —
 * from the sources, or from the built declarations through the package's own name.
 */
import { dirname, join, resolve } from "node:path";
import ts from "typescript";

/** One option as its hover shows it. */
export interface OptionDoc {
  /** The JSDoc text, tags left out. */
  text: string;
  /** The `@default` tag's text, if any. */
  default?: string;
}

const CONSUMER = resolve("test/__option_docs__.ts");

/**
 * The documented options of each named type, as a user importing `imports` sees them: the
 * properties declared by this package (under `src/` or `dist/`), not those of a base class from
 * a dependency, with their JSDoc.
 *
 * @param imports The types to read by module specifier, e.g. `{ "langchain-inference-service": ["RetryOptions"] }`.
 * @param built Read the package's own name as a user does, from the built declarations.
 */
export function optionDocs(
  imports: Record<string, readonly string[]>,
  { built = false }: { built?: boolean } = {},
): Map<string, Map<string, OptionDoc>> {
  const names = Object.values(imports).flat();
  const source = [
    ...Object.entries(imports).map(
      ([specifier, types]) => `import type { ${types.join(", ")} } from "${specifier}";`,
    ),
    ...names.map((name) => `export declare const ${name}_: ${name};`),
  ].join("\n");
  const config = ts.getParsedCommandLineOfConfigFile(
    "tsconfig.json",
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: () => {},
    },
  )!;
  const host = ts.createCompilerHost(config.options);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (file, language, ...rest) =>
    resolve(file) === CONSUMER
      ? ts.createSourceFile(file, source, language)
      : getSourceFile(file, language, ...rest);
  const fileExists = host.fileExists.bind(host);
  host.fileExists = (file) => resolve(file) === CONSUMER || fileExists(file);
  // Built: the package's own name resolves through package.json's exports to dist/, as for a
  // user; tsconfig's paths would send it to src/.
  const options = { ...config.options, noEmit: true, ...(built ? { paths: undefined } : {}) };
  const program = ts.createProgram([CONSUMER], options, host);
  const checker = program.getTypeChecker();
  const consumer = program.getSourceFile(CONSUMER)!;
  const ours = [join(process.cwd(), "src"), join(process.cwd(), "dist")];
  const found = new Map<string, Map<string, OptionDoc>>();
  for (const statement of consumer.statements) {
    if (!ts.isVariableStatement(statement)) continue;
    const declaration = statement.declarationList.declarations[0]!;
    const name = declaration.name.getText(consumer).slice(0, -1);
    const options = new Map<string, OptionDoc>();
    for (const property of checker.getPropertiesOfType(checker.getTypeAtLocation(declaration))) {
      const files = (property.getDeclarations() ?? []).map((d) => d.getSourceFile().fileName);
      if (!files.some((file) => ours.some((dir) => resolve(dirname(file)).startsWith(dir)))) {
        continue;
      }
      const tag = property.getJsDocTags(checker).find((t) => t.name === "default");
      options.set(property.name, {
        text: ts.displayPartsToString(property.getDocumentationComment(checker)),
        ...(tag ? { default: ts.displayPartsToString(tag.text) } : {}),
      });
    }
    found.set(name, options);
  }
  return found;
}

/**
 * The value a default's text names, for comparing the docs' wording of it: a leading code span
 * as it is, else the text up to a comment ("600000 (10 minutes)" → "600000"), without
 * backticks; "none", "—" and an env variable all mean no value of its own.
 */
export function defaultValue(text: string): string {
  const trimmed = text.trim();
  // A value read from the environment is no default value of the option itself.
  if (trimmed.startsWith("env ")) return "—";
  const code = /^`([^`]*)`/.exec(trimmed);
  const value = (code ? code[1]! : trimmed.split(/ \(|; |: /)[0]!).replaceAll("`", "").trim();
  return value === "none" || value === "" ? "—" : value;
}

/** The env variable a default names (`env \`INFERENCE_SERVICE_API_KEY\``), or "—". */
export function envVariable(text: string | undefined): string {
  return /\benv `([A-Z_]+)`/.exec(text ?? "")?.[1] ?? "—";
}
