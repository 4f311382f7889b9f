/**
 * The house rules of src/, as docs/architecture.md draws them: each folder is a layer and imports
 * only from the layers below it, so a feature never reaches up into the code that uses it. The
 * emulator stands beside the client (it plays the service) and shares only the profile schema and
 * the table of gateway codes (whose sample bodies it sends).
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

/** Bottom to top. Files at the top of src/ (constants, version) count as the ground floor. */
const LAYERS = [
  ".",
  "utils",
  "cassette",
  "errors",
  "config",
  "stores",
  "spend",
  "telemetry",
  "transport",
  "apis",
  "middleware",
  "diagnose",
  "testing",
  "cli",
] as const;
/**
 * What the emulator, which stands in for the service, may take from the client (and the cassettes
 * it replays): the profile schema, and the table of gateway codes whose samples it sends.
 */
const EMULATOR_MAY_IMPORT = new Set([
  ".",
  "utils",
  "cassette",
  "config/profiles.ts",
  "errors/gateway_codes.ts",
]);
/** The Node-only layers that run the emulator: the command, and the test helper (its replay and recording proxy). */
const EMULATOR_USERS = new Set(["cli", "testing"]);
/** The package's entries, which import anything they export. */
const ENTRIES = new Set(["index.ts"]);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .filter((name) => name.endsWith(".ts"))
    .map((name) => join(dir, name));
}

/** The top folder of a file under src/ ("." for a file at the top). */
function folderOf(file: string): string {
  const [first, ...rest] = relative("src", file).split("/");
  return rest.length === 0 ? "." : first!;
}

function importsOf(file: string): string[] {
  const text = readFileSync(file, "utf8");
  const specifiers = [...text.matchAll(/(?:from|import)\s*\(?\s*"(\.{1,2}\/[^"]+)"/g)];
  return specifiers.map(([, spec]) => join(dirname(file), spec!).replace(/\.js$/, ".ts"));
}

/** Every import of src/ that runs against the layering, as "from -> to". */
function againstTheLayering(): string[] {
  const found: string[] = [];
  for (const file of sourceFiles("src")) {
    if (ENTRIES.has(relative("src", file))) continue;
    const from = folderOf(file);
    for (const target of importsOf(file)) {
      const to = folderOf(target);
      if (to === from) continue;
      const ok =
        from === "emulator"
          ? EMULATOR_MAY_IMPORT.has(to) || EMULATOR_MAY_IMPORT.has(relative("src", target))
          : to !== "emulator" || EMULATOR_USERS.has(from)
            ? LAYERS.indexOf(to as (typeof LAYERS)[number]) <
              LAYERS.indexOf(from as (typeof LAYERS)[number])
            : false;
      if (!ok) found.push(`${file} -> ${relative(".", target)}`);
    }
  }
  return found;
}

describe("the layering of src/", () => {
  it("has every folder in a layer (a new folder must be placed in LAYERS)", () => {
    const folders = new Set(sourceFiles("src").map(folderOf));
    for (const folder of folders) {
      expect([...LAYERS, "emulator"]).toContain(folder);
    }
  });

  it("has no import that runs up the layers, or into the emulator from the client", () => {
    expect(againstTheLayering()).toEqual([]);
  });

  it("imports langchain (an optional peer) from src/middleware/ only, the subpath that needs it", () => {
    const importing = sourceFiles("src").filter(
      (file) =>
        folderOf(file) !== "middleware" &&
        /from "(langchain|@langchain\/langgraph)(\/[^"]*)?"/.test(readFileSync(file, "utf8")),
    );
    expect(importing).toEqual([]);
  });

  it("keeps at most a handful of files at the top of src/", () => {
    const top = readdirSync("src").filter((name) => name.endsWith(".ts"));
    expect(top.length).toBeLessThanOrEqual(5);
  });
});

/** The API a file under src/apis/ belongs to, or undefined for what the APIs share. */
function apiOf(file: string): string | undefined {
  const [top, api, ...rest] = relative("src", file).split("/");
  return top === "apis" && rest.length > 0 ? api : undefined;
}

describe("the API folders of src/apis/", () => {
  it("take nothing from one another: what two APIs share stands beside them", () => {
    const found: string[] = [];
    // The one route between two APIs: the chat model hands its calls to the Responses API's
    // route when `useResponsesApi` asks for it (it owns nothing of that API but the switch, whose
    // check its options schema takes from the Responses API's options).
    const routes = new Set([
      "src/apis/chat/chat_models.ts -> src/apis/responses/route.ts",
      "src/apis/chat/options.ts -> src/apis/responses/options.ts",
    ]);
    for (const file of sourceFiles("src/apis")) {
      const own = apiOf(file);
      for (const target of importsOf(file)) {
        const other = apiOf(target);
        const edge = `${relative(".", file)} -> ${relative(".", target)}`;
        if (own !== undefined && other !== undefined && other !== own && !routes.has(edge)) {
          found.push(`${file} -> ${relative(".", target)}`);
        }
      }
    }
    expect(found).toEqual([]);
  });
});

/** A file's code without its comments, as the TypeScript printer writes it back. */
const printer = ts.createPrinter({ removeComments: true });
const codes = new Map<string, string>();
function codeOf(file: string): string {
  let code = codes.get(file);
  if (code === undefined) {
    const text = readFileSync(file, "utf8");
    code = printer.printFile(ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false));
    codes.set(file, code);
  }
  return code;
}

/** The files outside an API's own folder whose code (comments aside) names it, anywhere in a word. */
function namingFiles(api: string): { client: string[]; emulatorAndCli: string[] } {
  const name = new RegExp(api, "i");
  const naming = sourceFiles("src").filter(
    (file) =>
      !file.startsWith(join("src", "apis", api) + "/") &&
      !file.endsWith(".generated.ts") &&
      name.test(codeOf(file)),
  );
  const served = (file: string) => ["emulator", "cli"].includes(folderOf(file));
  return {
    client: naming.filter((file) => !served(file)),
    emulatorAndCli: naming.filter(served),
  };
}

describe("the files that name an API", () => {
  // What adding an API costs outside its folder: on the client, the public index, the API table
  // and a few rows of data (its status rows, its telemetry attributes, its diagnose option); in
  // the emulator and the CLI, its route, model and state. A new branch on an API elsewhere
  // fails here: give the API's row (transport/apis.ts) or its folder what the layer needs.
  it.each(["rerank", "embeddings", "responses"])(
    "%s: at most 6 client files, and at most 8 in the emulator and the CLI",
    (api) => {
      const { client, emulatorAndCli } = namingFiles(api);
      expect(client.length, client.join("\n")).toBeLessThanOrEqual(6);
      expect(emulatorAndCli.length, emulatorAndCli.join("\n")).toBeLessThanOrEqual(8);
    },
  );
});
