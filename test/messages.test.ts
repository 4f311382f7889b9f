/**
 * @module What users and contributors read never cites the interface document's sections ("§7
 * rule 3"): they do not have it. Comments cite docs/service-contract.md instead, and messages cite
 * nothing. Checked on every source file (comments included), every string literal of src/, every
 * message and hint of the error table, and the CLI's output in the situations the docs show (the
 * published declarations are checked with the built package, in package.test.ts).
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import { describe, expect, it, vi } from "vitest";
import { runChatCommand } from "../src/cli/chat.js";
import { runDoctorCommand } from "../src/cli/doctor.js";
import { runEmulatorCommand } from "../src/cli/emulator.js";
import { main } from "../src/cli/main.js";
import { PENDING_SERVICE_NAME } from "../src/emulator/index.js";
import { type Failure, type FailureContext, toServiceError } from "../src/errors/mapper.js";
import { capture, useEmulator } from "./cli/helpers.js";
import { bodies, HTML_PAGE, withRequestId } from "./helpers/fixtures.js";

const SECTION = /§/;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sourceFiles(path) : path.endsWith(".ts") ? [path] : [];
  });
}

/**
 * Whether a string is a cell of docs/errors.md kept in an error table (`doc: { condition, action }`
 * of a row): page text, which cites the contract as every page does, never a message.
 */
function isDocCell(node: ts.Node): boolean {
  const cell = node.parent;
  if (!ts.isPropertyAssignment(cell) || !["condition", "action"].includes(cell.name.getText())) {
    return false;
  }
  const doc = cell.parent.parent;
  return ts.isPropertyAssignment(doc) && doc.name.getText() === "doc";
}

describe("no § in what users read", () => {
  it("in any file of src/, comments and JSDoc included", () => {
    const found = sourceFiles("src").flatMap((file) =>
      readFileSync(file, "utf8")
        .split("\n")
        .flatMap((line, i) => (SECTION.test(line) ? [`${file}:${i + 1}: ${line.trim()}`] : [])),
    );
    expect(found).toEqual([]);
  });

  it("in any string literal or template of src/: messages say what to change, and cite no page", () => {
    const found: string[] = [];
    for (const file of sourceFiles("src")) {
      const source = ts.createSourceFile(
        file,
        readFileSync(file, "utf8"),
        ts.ScriptTarget.Latest,
        true,
      );
      const visit = (node: ts.Node): void => {
        if (
          (ts.isStringLiteral(node) ||
            ts.isNoSubstitutionTemplateLiteral(node) ||
            ts.isTemplateHead(node) ||
            ts.isTemplateMiddle(node) ||
            ts.isTemplateTail(node)) &&
          (SECTION.test(node.text) || /service-contract/.test(node.text)) &&
          !isDocCell(node)
        ) {
          const { line } = source.getLineAndCharacterOfPosition(node.getStart());
          found.push(`${file}:${line + 1}: ${node.text}`);
        }
        ts.forEachChild(node, visit);
      };
      visit(source);
    }
    expect(found.length === 0 ? [] : found).toEqual([]);
  });

  it("in any message or hint of the error mapper's table, on either surface", () => {
    const headers = new Headers(withRequestId());
    const failures: Failure[] = [
      ...[400, 401, 404, 408, 409, 413, 418, 422, 429, 500, 502, 503, 504, 302].map(
        (status): Failure => ({
          kind: "http",
          status,
          body: JSON.stringify({ error: { code: "" } }),
          headers,
        }),
      ),
      { kind: "http", status: 403, body: JSON.stringify(bodies.noCredit), headers },
      { kind: "http", status: 403, body: JSON.stringify({ error: { code: "other" } }), headers },
      { kind: "http", status: 503, body: JSON.stringify(bodies.modelNotFound), headers },
      { kind: "network", cause: Object.assign(new Error("x"), { code: "ECONNREFUSED" }) },
      { kind: "network", cause: Object.assign(new Error("x"), { code: "ENOTFOUND" }) },
      { kind: "network", cause: new Error("x"), afterResponse: true },
      { kind: "timeout" },
      { kind: "empty", status: 200 },
      { kind: "non-json", status: 200, body: HTML_PAGE, contentType: "text/html" },
      { kind: "malformed", detail: "no choices", body: { choices: [] } },
      {
        kind: "stream-error",
        payload: { error: { code: "model_not_found" } },
        partialOutput: "Hel",
      },
      { kind: "stream-error", payload: { error: { code: "upstream_error" } } },
    ];
    const contexts: FailureContext[] = [
      { surface: "hosted", model: "m" },
      { surface: "dedicated", serviceName: "t.a" },
      { surface: "hosted", model: "m", midStream: true, partialOutput: "Hel" },
      { surface: "hosted", model: "m", api: "embeddings", inputs: { first: 3, count: 1 } },
      { surface: "hosted", model: "m", api: "embeddings", inputs: { first: 0, count: 8 } },
    ];
    const cited: string[] = [];
    for (const failure of failures) {
      for (const ctx of contexts) {
        const error = toServiceError(failure, ctx);
        for (const text of [error.message, error.hint]) {
          if (SECTION.test(text)) cited.push(`${failure.kind} ${error.name}: ${text}`);
        }
      }
    }
    expect(failures.length * contexts.length).toBeGreaterThan(60);
    expect(cited).toEqual([]);
  });
});

describe("no § in the CLI's output", () => {
  const current = useEmulator();
  const doctor = (...argv: string[]) => capture(runDoctorCommand, argv);
  const chat = (...argv: string[]) => capture(runChatCommand, argv);

  it("doctor, in every situation docs/troubleshooting.md shows", async () => {
    const outputs: string[] = [];
    const keep = async (run: Promise<{ out: string; err: string }>) => {
      const { out, err } = await run;
      outputs.push(out + err);
    };
    await keep(doctor("--model", "emulator-chat", "--service-name", "tenant-demo.demo-endpoint"));
    await keep(doctor("--model", "emulator-chatt"));
    await keep(doctor("--rerank-model", "emulator-rerankk"));
    await keep(
      doctor("--api-key", "sk-emulator-noperm", "--service-name", "tenant-demo.demo-endpoint"),
    );
    await keep(
      doctor("--api-key", "sk-emulator-expired", "--service-name", "tenant-demo.demo-endpoint"),
    );
    await keep(doctor("--service-name", "tenant-demo.demo-endpont"));
    await keep(doctor("--service-name", "tenant-demo/demo-endpoint"));
    await keep(doctor("--service-name", PENDING_SERVICE_NAME, "--json"));
    await keep(doctor("--base-url", `${current().baseURL}/chat/completions`));
    await keep(doctor("--base-url", `${current().url}/console`));
    await keep(doctor("--base-url", "http://127.0.0.1:1"));
    current().state.setCredit(0);
    await keep(doctor("--model", "emulator-chat"));
    await keep(doctor("--model", "emulator-chat", "--api-key", "sk-emulator-demo\u200b"));
    vi.stubEnv("INFERENCE_SERVICE_API_KEY", "");
    await keep(doctor());
    await keep(doctor("--bogus"));
    expect(outputs.join("\n")).toContain("✖");
    expect(outputs.filter((text) => SECTION.test(text))).toEqual([]);
  });

  it("chat, emulator and the dispatcher: help, errors and the banner", async () => {
    const outputs = [
      await chat("--model", "emulator-chatt", "hi"),
      await chat("--service-name", PENDING_SERVICE_NAME, "hi"),
      await chat("--help"),
      await capture(runDoctorCommand, ["--help"]),
      await capture(runEmulatorCommand, ["--help"]),
      await capture(main, ["--help"]),
    ].map(({ out, err }) => out + err);
    const controller = new AbortController();
    let banner = "";
    const running = runEmulatorCommand(["--port", "0"], {
      stdout: (text) => {
        banner += text;
        controller.abort();
      },
      stderr: () => {},
      signal: controller.signal,
    });
    await running;
    expect(banner).toContain("export INFERENCE_SERVICE_BASE_URL=");
    expect([...outputs, banner].filter((text) => SECTION.test(text))).toEqual([]);
  });
});
