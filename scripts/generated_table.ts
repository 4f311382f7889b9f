/**
 * @module A docs table generated from a table of the code: it stands on its page between two
 * markers, the first of which names its source and the command that regenerates it. The
 * generators of docs/errors.md (`errors_doc.ts`) and docs/emulator.md (`faults_doc.ts`) share this.
 */

/** One generated table: where it comes from, and how it is written. */
export interface GeneratedTable {
  /** The table's name in the code, as its marker names it. */
  name: string;
  /** The file that holds it. */
  file: string;
  render: () => string;
}

/** The page a table stands on, and the command that regenerates its tables. */
export interface GeneratedPage {
  page: string;
  command: string;
}

const beginOf = ({ command }: GeneratedPage, { name, file }: GeneratedTable) =>
  `<!-- generated from ${name} (${file}) by \`${command}\`: edit the table there -->`;
const END = "<!-- end of the generated table -->";

/** Where `table` stands in `doc`; throws when its markers are missing. */
function section(
  doc: string,
  page: GeneratedPage,
  table: GeneratedTable,
): { start: number; end: number } {
  const marker = beginOf(page, table);
  const start = doc.indexOf(marker);
  const end = start === -1 ? -1 : doc.indexOf(END, start);
  if (start === -1 || end < start) {
    throw new Error(`${page.page} has lost the markers of its generated table:\n${marker}\n${END}`);
  }
  return { start: start + marker.length, end };
}

/** `table` as `doc` shows it now. */
export function tableIn(doc: string, page: GeneratedPage, table: GeneratedTable): string {
  const { start, end } = section(doc, page, table);
  return doc.slice(start, end).trim();
}

/** `doc` with `table` replaced by `text` (by default, what the code generates). */
export function withTableIn(
  doc: string,
  page: GeneratedPage,
  table: GeneratedTable,
  text?: string,
): string {
  const { start, end } = section(doc, page, table);
  return `${doc.slice(0, start)}\n\n${text ?? table.render()}\n\n${doc.slice(end)}`;
}

/** A Markdown cell's text: a `|` would end the cell. */
export const cell = (text: string) => text.replace(/\|/g, "\\|");
