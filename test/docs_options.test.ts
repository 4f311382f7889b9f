/**
 * @module Each option is declared once, on its owner's schema, and everything else is checked
 * against it: the public types are the schema's fields (nothing declared beside them), each field's
 * JSDoc names its default and that default is the one the schema applies, and the docs name every
 * option — where a page has an option table, its defaults and env variables are the JSDoc's.
 */
import { readFileSync } from "node:fs";
import { beforeAll, describe, expect, it } from "vitest";
import type { z } from "zod";
import { chatInferenceServiceOptions } from "../src/apis/chat/options.js";
import { dedicatedEndpointLLMOptions } from "../src/apis/completions/options.js";
import { inferenceServiceEmbeddingsOptions } from "../src/apis/embeddings/options.js";
import { inferenceServiceRerankOptions } from "../src/apis/rerank/options.js";
import { unwrapField } from "../src/config/options.js";
import { diagnoseOptions } from "../src/diagnose/diagnose.js";
import { budgetMiddlewareOptions } from "../src/middleware/budget.js";
import { fallbackMiddlewareOptions } from "../src/middleware/fallback.js";
import { rateLimiterOptions } from "../src/spend/rate_limiter.js";
import { usageTrackerOptions } from "../src/spend/usage_tracker_options.js";
import { redisStoreOptions } from "../src/stores/redis_store.js";
import { retryOptionsSchema } from "../src/transport/retry.js";
import { defaultValue, envVariable, type OptionDoc, optionDocs } from "./helpers/option_docs.js";

interface Owner {
  /** The public type, as exported. */
  type: string;
  schema: z.core.$ZodType;
  /** The page that documents the options. */
  page: string;
  /** The header row of the page's option table, when it has one. */
  table?: string;
  /** The module that exports the type. @default "../src/index.ts" (the main entry) */
  from?: string;
}

const OWNERS: Owner[] = [
  {
    type: "ChatInferenceServiceFields",
    schema: chatInferenceServiceOptions,
    page: "docs/hosted-models.md",
    table: "| option | default | env variable | notes |",
  },
  {
    type: "DedicatedEndpointLLMFields",
    schema: dedicatedEndpointLLMOptions,
    page: "docs/dedicated-endpoints.md",
  },
  {
    type: "InferenceServiceEmbeddingsFields",
    schema: inferenceServiceEmbeddingsOptions,
    page: "docs/embeddings.md",
    table: "| option | default | env variable | notes |",
  },
  {
    type: "InferenceServiceRerankFields",
    schema: inferenceServiceRerankOptions,
    page: "docs/rerank.md",
    table: "| option | default | env variable | notes |",
  },
  { type: "RetryOptions", schema: retryOptionsSchema, page: "docs/hosted-models.md" },
  { type: "DiagnoseOptions", schema: diagnoseOptions, page: "docs/troubleshooting.md" },
  { type: "UsageTrackerOptions", schema: usageTrackerOptions, page: "docs/usage.md" },
  {
    type: "RateLimiterOptions",
    schema: rateLimiterOptions,
    page: "docs/usage.md",
    table: "| option | default | what it does |",
  },
  {
    type: "RedisStoreOptions",
    schema: redisStoreOptions,
    page: "docs/usage.md",
    from: "../src/stores/redis_store.ts",
  },
  {
    type: "BudgetMiddlewareOptions",
    schema: budgetMiddlewareOptions,
    page: "docs/agents.md",
    table: "| budget option | default | what it does |",
    from: "../src/middleware/index.ts",
  },
  {
    type: "FallbackMiddlewareOptions",
    schema: fallbackMiddlewareOptions,
    page: "docs/agents.md",
    table: "| fallback option | default | what it does |",
    from: "../src/middleware/index.ts",
  },
];

/** The schema's fields, by name. */
function fieldsOf(schema: z.core.$ZodType): Record<string, z.core.$ZodType> {
  const def = unwrapField(schema).inner._zod.def as { shape?: Record<string, z.core.$ZodType> };
  return def.shape ?? {};
}

/** The default a field applies, as its JSDoc would write it; undefined when there is none to write. */
function appliedDefault(field: z.core.$ZodType): string | undefined {
  const result = (field as z.ZodType).safeParse(undefined);
  const value: unknown = result.success ? result.data : undefined;
  if (typeof value === "string") return JSON.stringify(value);
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  if (
    value !== null &&
    typeof value === "object" &&
    Object.getPrototypeOf(value) === Object.prototype
  ) {
    return JSON.stringify(value).replaceAll('"', "");
  }
  return undefined; // none, or a function or instance (`Date.now`, a new MemoryStore)
}

/** The rows of the table under `header` on `page`: option name → its cells. */
function tableOf(page: string, header: string): Map<string, string[]> {
  const lines = readFileSync(page, "utf8").split("\n");
  const start = lines.indexOf(header);
  expect(start, `${page} has a table headed ${header}`).toBeGreaterThanOrEqual(0);
  const rows = new Map<string, string[]>();
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith("|")) break;
    const cells = line.split(" | ").map((cell) => cell.replace(/^\| ?| ?\|$/g, "").trim());
    rows.set(/`([^`]+)`/.exec(cells[0]!)![1]!, cells.slice(1));
  }
  return rows;
}

/** Every word inside a code span of a page: the options it names. */
function namedOn(page: string): Set<string> {
  const spans = readFileSync(page, "utf8").match(/`[^`\n]+`/g) ?? [];
  return new Set(spans.flatMap((span) => span.match(/[A-Za-z]+/g) ?? []));
}

let docs: Map<string, Map<string, OptionDoc>>;

beforeAll(() => {
  const imports: Record<string, string[]> = {};
  for (const { type, from = "../src/index.ts" } of OWNERS) {
    imports[from] = [...(imports[from] ?? []), type];
  }
  docs = optionDocs(imports);
}, 120_000);

describe.each(OWNERS)("the options of $type", ({ type, schema, page }) => {
  const fields = fieldsOf(schema);

  it("are the schema's fields, each with its JSDoc and @default on the public type", () => {
    const documented = docs.get(type)!;
    expect([...documented.keys()].sort()).toEqual(Object.keys(fields).sort());
    for (const [name, doc] of documented) {
      expect(doc.text, `${type}.${name} has a JSDoc`).not.toBe("");
      expect(doc.default, `${type}.${name} has a @default`).toBeDefined();
    }
  });

  it("document the default the schema applies", () => {
    for (const [name, field] of Object.entries(fields)) {
      const applied = appliedDefault(field);
      if (applied === undefined) continue;
      const documented = defaultValue(docs.get(type)!.get(name)!.default!).replace(/\s/g, "");
      expect(documented, `${type}.${name}`).toBe(applied);
    }
  });

  it(`are each named in ${page}`, () => {
    const named = namedOn(page);
    expect(Object.keys(fields).filter((name) => !named.has(name))).toEqual([]);
  });
});

describe.each(
  OWNERS.filter((owner): owner is Owner & { table: string } => owner.table !== undefined),
)("the option table of $type", ({ type, schema, page, table }) => {
  it(`in ${page} matches the schema: options, defaults, env variables`, () => {
    const rows = tableOf(page, table);
    expect([...rows.keys()].sort()).toEqual(Object.keys(fieldsOf(schema)).sort());
    const hasEnv = table.includes("env variable");
    for (const [name, [defaultCell = "", envCell = ""]] of rows) {
      const jsdoc = docs.get(type)!.get(name)!.default;
      expect(defaultValue(defaultCell), `default of ${name}`).toBe(defaultValue(jsdoc ?? ""));
      if (hasEnv) expect(defaultValue(envCell), `env variable of ${name}`).toBe(envVariable(jsdoc));
    }
  });
});
