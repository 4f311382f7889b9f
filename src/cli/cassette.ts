/**
 * @module `inference-service cassette scan|redact|prune`: looks for secrets in cassettes already
 * written (and removes them), and drops recordings a replay never used.
 */
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import {
  type Cassette,
  CassetteError,
  readCassette,
  serializeCassette,
} from "../cassette/cassette.js";
import { MIN_REDACT_LENGTH } from "../cassette/redaction.js";
import { type ScanResult, scanCassette, withoutEntries } from "../cassette/scan.js";
import { writeFileAtomically } from "../cassette/writer.js";
import { readEnv } from "../config/env.js";
import { ENV } from "../constants.js";
import { type CommandIO, type CommandLine, runCommand, UsageError, type Writers } from "./args.js";

const USAGE = `Usage: inference-service cassette scan PATH... [--secret VALUE]
       inference-service cassette redact PATH... [--secret VALUE]
       inference-service cassette prune FILE --drop N[,N...]

Looks after cassettes already written (HAR files from \`inference-service record\` or the testing
helper). A PATH is a cassette, or a folder searched for *.har files.

  scan     looks for secrets: a credential header or key-shaped query parameter (?key=, ?api-key=,
           ?access_token=, ...) not [redacted], a Bearer or Basic credential or an sk-... key
           anywhere, each also where it is echoed, in any encoding (URL-encoded, base64, a body
           that is not UTF-8, another case). Prints where, never the secret; exits 1 when it finds one
  redact   the same, and rewrites each cassette with every secret found [redacted] (replay still
           matches: it compares requests in their redacted form)
  prune    drops recordings by their entry number, as a replay's report of unused recordings names
           them (openCassette prints the command)

Options:
      --secret VALUE   a value to look for too, such as your key (repeatable; at least ${MIN_REDACT_LENGTH} characters).
                       The value of $${ENV.apiKey} is looked for when it is set. A value typed here
                       shows in your shell history and \`ps\`
      --drop LIST      prune: the entry numbers to drop, such as 3,4,7
  -h, --help           show this help

A secret that ever reached a cassette (a commit, a CI log) is not safe any more: rotate the key.`;

type Action = "scan" | "redact" | "prune";

interface CassetteRequest {
  action: Action;
  paths: string[];
  secrets: string[];
  drop: Set<number>;
}

/**
 * Runs the cassette command and resolves to its exit code: 0 when done (scan: nothing found),
 * 1 when scan found a secret or a cassette could not be read or written, 2 for bad arguments.
 *
 * @example
 * // inference-service cassette scan test/cassettes
 * process.exitCode = await runCassetteCommand(["scan", "test/cassettes"]);
 */
export function runCassetteCommand(argv: string[], io: CommandIO = {}): Promise<number> {
  return runCommand(argv, io, {
    name: "cassette",
    usage: USAGE,
    positionals: true,
    flags: {
      secret: { type: "string", multiple: true },
      drop: { type: "string" },
    },
    read: readRequest,
    run: (request, writers) => Promise.resolve(run(request, writers)),
  });
}

function readRequest({ values, positionals }: CommandLine): CassetteRequest {
  const [action, ...paths] = positionals;
  if (action !== "scan" && action !== "redact" && action !== "prune") {
    throw new UsageError(
      action === undefined
        ? "say what to do: scan, redact or prune"
        : `unknown action "${action}"; it is scan, redact or prune`,
    );
  }
  if (paths.length === 0) {
    throw new UsageError(`${action} needs ${action === "prune" ? "a cassette FILE" : "a PATH"}`);
  }
  const secrets = ((values as Record<string, unknown>).secret as string[] | undefined) ?? [];
  const short = secrets.findIndex((value) => value.length < MIN_REDACT_LENGTH);
  if (short >= 0) {
    throw new UsageError(
      `--secret value ${short + 1} has fewer than ${MIN_REDACT_LENGTH} characters: a value that short would be found inside ordinary words`,
    );
  }
  const key = readEnv(ENV.apiKey);
  if (key !== undefined && key.length >= MIN_REDACT_LENGTH) secrets.push(key);
  return { action, paths, secrets, drop: action === "prune" ? dropList(values, paths) : new Set() };
}

/** `--drop 3,4,7` as entry numbers. */
function dropList(values: CommandLine["values"], paths: string[]): Set<number> {
  if (paths.length > 1) throw new UsageError("prune takes one cassette FILE");
  const raw = values.drop;
  if (typeof raw !== "string" || !/^\s*\d+(\s*,\s*\d+)*\s*$/.test(raw)) {
    throw new UsageError(
      `prune needs --drop with the entry numbers to drop, such as --drop 3,4,7${typeof raw === "string" ? `; got "${raw}"` : ""}`,
    );
  }
  return new Set(raw.split(",").map((n) => Number(n.trim())));
}

function run(request: CassetteRequest, { out, err }: Writers): number {
  if (request.action === "prune") return prune(request.paths[0]!, request.drop, out, err);
  let files: string[];
  try {
    files = request.paths.flatMap(cassettesUnder);
  } catch (error) {
    err(`inference-service cassette: ${(error as Error).message}\n`);
    return 1;
  }
  let failed = false;
  let found = 0;
  for (const file of files) {
    let cassette: Cassette;
    try {
      cassette = readCassette(file);
    } catch (error) {
      if (!(error instanceof CassetteError)) throw error;
      err(`${error.message}\n`);
      failed = true;
      continue;
    }
    const result = scanCassette(cassette, request.secrets);
    if (result.entries.length === 0) {
      out(`${file}: no secret found.\n`);
      continue;
    }
    found++;
    out(report(file, result, request.action === "redact"));
    if (request.action === "redact") {
      try {
        writeFileAtomically(file, serializeCassette(result.redacted));
      } catch (error) {
        if (!(error instanceof CassetteError)) throw error;
        err(`${error.message}\n`);
        failed = true;
      }
    }
  }
  if (files.length === 0) out("No cassette (*.har) found.\n");
  if (found > 0) {
    out(
      request.action === "redact"
        ? "Rotate every key that was written to a cassette: it may already be in a commit, a fork or a CI log.\n"
        : `Rewrite ${found === 1 ? "it" : "them"} with: inference-service cassette redact ${request.paths.join(" ")}; then rotate the keys: a key written to a cassette may already be in a commit, a fork or a CI log.\n`,
    );
  }
  return failed || (request.action === "scan" && found > 0) ? 1 : 0;
}

/** What was found in one cassette, and where: never the secret itself. */
function report(file: string, result: ScanResult, redacted: boolean): string {
  const places = result.entries.reduce((sum, e) => sum + e.fields.length, 0);
  return [
    `${file}: ${result.secrets.length} secret${result.secrets.length === 1 ? "" : "s"} in ${places} place${places === 1 ? "" : "s"}${redacted ? ", now [redacted]" : ""}:`,
    ...result.secrets.map((secret) => `  ${secret.what}`),
    ...result.entries.map(({ entry, fields }) => `  entry ${entry}: ${fields.join(", ")}`),
    "",
  ].join("\n");
}

/** The cassettes a PATH names: the file itself, or every *.har under a folder (not in node_modules or a hidden folder). */
function cassettesUnder(path: string): string[] {
  let isFolder: boolean;
  try {
    isFolder = statSync(path).isDirectory();
  } catch {
    throw new Error(`${path}: no such file or folder`);
  }
  if (!isFolder) return [path];
  return readdirSync(path, { withFileTypes: true })
    .sort((a, b) => a.name.localeCompare(b.name))
    .flatMap((item) => {
      const inner = join(path, item.name);
      if (item.isDirectory()) {
        return item.name === "node_modules" || item.name.startsWith(".")
          ? []
          : cassettesUnder(inner);
      }
      return item.isFile() && item.name.endsWith(".har") ? [inner] : [];
    });
}

function prune(
  file: string,
  drop: ReadonlySet<number>,
  out: (text: string) => void,
  err: (text: string) => void,
): number {
  try {
    const cassette = readCassette(file);
    const size = cassette.log.entries.length;
    const missing = [...drop].filter((index) => index >= size);
    if (missing.length > 0) {
      err(
        `cassette ${file}: it holds entries 0 to ${size - 1}, not ${missing.join(", ")}; nothing was dropped.\n`,
      );
      return 1;
    }
    writeFileAtomically(file, serializeCassette(withoutEntries(cassette, drop)));
    out(`${file}: dropped ${drop.size} of ${size} recordings; ${size - drop.size} left.\n`);
    return 0;
  } catch (error) {
    if (!(error instanceof CassetteError)) throw error;
    err(`${error.message}\n`);
    return 1;
  }
}
