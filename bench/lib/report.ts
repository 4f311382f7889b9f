/** @module What a benchmark hands back (sections of markdown tables) and how it is printed and written. */

/** One table: a title, a one-line "how measured", the goal, then rows of cells. */
export interface Table {
  title: string;
  how: string;
  goal?: string;
  headers: string[];
  rows: string[][];
  /** Lines printed under the table (computed figures, caveats). */
  notes?: string[];
  /** Headline lines for the summary at the top of RESULTS.md. */
  summary?: string[];
}

/** What one benchmark produces. */
export interface Section {
  /** The name used on the command line (`npm run bench -- per-call`). */
  name: string;
  heading: string;
  tables: Table[];
}

// A figure, maybe with a unit, then nothing, a parenthesis or a range: `1.08 ms (…)`, `0.97–1.10`.
const NUMERIC = /^[-−+~]?[\d.,]+(×|%| ?(ms|µs|s|kB|MB|GB))?($| \(|–)/;

/** A markdown table; columns of figures are right-aligned. */
function markdownTable(table: Pick<Table, "headers" | "rows">): string {
  const escapeCell = (cell: string) => cell.replaceAll("|", "\\|");
  const numeric = table.headers.map((_, i) =>
    table.rows.every((row) => NUMERIC.test(row[i] ?? "") || (row[i] ?? "") === "–"),
  );
  const line = (cells: string[]) => `| ${cells.map(escapeCell).join(" | ")} |`;
  return [
    line(table.headers),
    `|${numeric.map((right) => (right ? "---:" : "---")).join("|")}|`,
    ...table.rows.map(line),
  ].join("\n");
}

/** The markdown of one table: its title, how it was measured, the goal, the table, the notes. */
export function renderTable(table: Table): string {
  const parts = [`### ${table.title}`, "", `*How measured:* ${table.how}`];
  if (table.goal) parts.push("", `*Goal:* ${table.goal}`);
  parts.push("", markdownTable(table));
  if (table.notes?.length) parts.push("", ...table.notes.map((note) => `- ${note}`));
  return parts.join("\n");
}

export function renderSection(section: Section): string {
  return [`## ${section.heading}`, "", ...section.tables.map((t) => `${renderTable(t)}\n`)].join(
    "\n",
  );
}
