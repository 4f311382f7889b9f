/**
 * What is emitted is one set of tables (`src/telemetry/names.ts`): docs/observability.md holds
 * them as they render, and every attribute, event and metric the package emits is in them.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { createEmulator, DEFAULT_MODEL, FAULT_HEADER } from "../../src/emulator/index.js";
import { ChatInferenceService, RateLimiter, UsageTracker } from "../../src/index.js";
import { ATTRIBUTES, EVENTS, METRICS } from "../../src/telemetry/names.js";
import type { Fetch } from "../../src/transport/fetch.js";
import { useOtel } from "../helpers/otel.js";
import { attributesTable, eventsTable, metricsTable } from "../helpers/telemetry_doc.js";

const PAGE = readFileSync("docs/observability.md", "utf8");
const otel = useOtel();

describe("docs/observability.md", () => {
  it.each([
    ["attributes", attributesTable],
    ["events", eventsTable],
    ["metrics", metricsTable],
  ])("holds the table of %s as src/telemetry/names.ts renders it", (_name, render) => {
    const table = render();
    expect(PAGE.includes(table), `paste into docs/observability.md:\n\n${table}\n`).toBe(true);
  });
});

describe("what the package emits", () => {
  it("is each in the tables: attributes, events and their attributes, metrics", async () => {
    const emulator = createEmulator({ faults: { retryAfterSeconds: 0 } });
    let sent = 0;
    const fetch: Fetch = (input, init) => {
      const headers = new Headers(init?.headers);
      if (sent++ === 0) headers.set(FAULT_HEADER, "429");
      return emulator.fetch(input, { ...init, headers });
    };
    const model = new ChatInferenceService(DEFAULT_MODEL, {
      apiKey: emulator.apiKey,
      baseURL: emulator.baseURL,
      fetch,
      retry: { initialDelayMs: 1, maxDelayMs: 2 },
      maxTokens: 64,
      temperature: 0,
      captureContent: true,
      rateLimiter: new RateLimiter({ requestsPerMinute: 60_000 }),
    });
    const usage = new UsageTracker({
      prices: { [DEFAULT_MODEL]: { input: 1, output: 1 } },
      budget: 5,
      currency: "credit",
    });
    await model.invoke("Hello", { callbacks: [usage] });
    for await (const _ of await model.stream("Hello", { callbacks: [usage] })) break;
    const tiny = new UsageTracker({
      prices: { [DEFAULT_MODEL]: { input: 1, output: 1 } },
      budget: 0,
    });
    await model.invoke("Hello", { callbacks: [tiny] }).catch(() => undefined);

    const spans = otel.spans();
    const attributes = new Set(spans.flatMap((span) => Object.keys(span.attributes)));
    const documented = new Set(Object.values(ATTRIBUTES).map((row) => row.name));
    expect([...attributes].filter((name) => !documented.has(name))).toEqual([]);
    const events = spans.flatMap((span) => span.events);
    const eventRows = new Map<string, Record<string, string>>(
      Object.values(EVENTS).map((row) => [row.name, row.attributes]),
    );
    expect(new Set(events.map((event) => event.name))).toEqual(new Set(eventRows.keys()));
    for (const event of events) {
      const known = Object.keys(eventRows.get(event.name)!);
      expect(Object.keys(event.attributes ?? {}).filter((name) => !known.includes(name))).toEqual(
        [],
      );
    }
    const metrics = await otel.metrics();
    const metricRows = new Map<string, { unit: string; kind: string }>(
      Object.values(METRICS).map((row) => [row.name, row]),
    );
    expect(new Set(metrics.keys())).toEqual(new Set(metricRows.keys()));
    for (const [name, metric] of metrics) {
      const row = metricRows.get(name)!;
      expect(metric.unit).toBe(row.unit);
      expect(metric.type).toBe(row.kind === "histogram" ? "HISTOGRAM" : "SUM");
      for (const point of metric.points) {
        const names = Object.keys(point.attributes);
        const onMetrics = (key: string) =>
          Object.values(ATTRIBUTES).some(
            (row) => row.name === key && row.on.includes("metrics" as never),
          );
        expect(names.filter((key) => !onMetrics(key))).toEqual([]);
      }
    }
  });
});
