/**
 * @module The tables of docs/observability.md, rendered from the telemetry's own tables
 * (`src/telemetry/names.ts`): the page must hold them as they are rendered here.
 */
import { ATTRIBUTES, EVENTS, METRICS } from "../../src/telemetry/names.js";

const code = (name: string) => `\`${name}\``;

/** The attributes table: each attribute, where it is set, what it holds. */
export function attributesTable(): string {
  return [
    "| attribute | on | what it holds |",
    "| --- | --- | --- |",
    ...Object.values(ATTRIBUTES).map(
      (row) => `| ${code(row.name)} | ${row.on.join(", ")} | ${row.doc} |`,
    ),
  ].join("\n");
}

/** The events table: each event of a call's span, its attributes, when it is added. */
export function eventsTable(): string {
  return [
    "| event | its attributes | when |",
    "| --- | --- | --- |",
    ...Object.values(EVENTS).map((row) => {
      const attributes = Object.entries(row.attributes)
        .map(([name, doc]) => `${code(name)}: ${doc}`)
        .join("; ");
      return `| ${code(row.name)} | ${attributes} | ${row.doc} |`;
    }),
  ].join("\n");
}

/** The metrics table: each instrument, its kind and unit, what it measures. */
export function metricsTable(): string {
  return [
    "| metric | instrument | unit | what it measures |",
    "| --- | --- | --- | --- |",
    ...Object.values(METRICS).map(
      (row) => `| ${code(row.name)} | ${row.kind} | ${code(row.unit)} | ${row.description} |`,
    ),
  ].join("\n");
}
