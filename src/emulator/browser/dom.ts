/**
 * @module DOM helpers of the console's browser script. Every value is written as text, never
 * parsed as HTML: request-log fields come from any caller.
 */

/** What {@link el} sets on a new element. */
export interface ElementProps {
  text?: string;
  className?: string;
  dataset?: Record<string, string>;
  /** Other attributes (`type`, `colspan`, …). */
  attributes?: Record<string, string>;
  /** Event listeners by event name (`click`, `change`). */
  on?: Record<string, (event: Event) => void>;
}

/** The element with this ID; the page's HTML has every ID the script uses. */
export function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const found = document.getElementById(id);
  if (!found) throw new Error(`The console page has no element #${id}`);
  return found as T;
}

/** A new element with its properties and children (strings become text nodes). */
export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: ElementProps = {},
  children: ReadonlyArray<Node | string> = [],
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (props.text !== undefined) node.textContent = props.text;
  if (props.className !== undefined) node.className = props.className;
  Object.assign(node.dataset, props.dataset);
  for (const [name, value] of Object.entries(props.attributes ?? {})) {
    node.setAttribute(name, value);
  }
  for (const [event, listener] of Object.entries(props.on ?? {})) {
    node.addEventListener(event, listener);
  }
  node.append(...children);
  return node;
}

/**
 * Replaces the children of `parent`, one by one into a fragment: a list as long as the state's
 * keys must not become the arguments of one call (too many overflow the stack).
 */
export function replaceChildren(parent: Element, children: readonly Node[]): void {
  const fragment = document.createDocumentFragment();
  for (const child of children) fragment.appendChild(child);
  parent.replaceChildren(fragment);
}

/** A table body's rows, or one row saying the table is empty. */
export function replaceRows(
  tbody: HTMLElement,
  rows: readonly HTMLTableRowElement[],
  emptyText: string,
  columns: number,
): void {
  const empty = el("tr", { className: "empty-row" }, [
    el("td", { text: emptyText, attributes: { colspan: String(columns) } }),
  ]);
  replaceChildren(tbody, rows.length > 0 ? rows : [empty]);
}

/**
 * Text with its `code` spans as `<code>` elements, the rest as text nodes: how the console shows
 * the fault table's summaries, written in the Markdown of the docs' table.
 */
export function withCode(text: string): Node[] {
  return text
    .split("`")
    .map((part, i) => (i % 2 === 1 ? el("code", { text: part }) : document.createTextNode(part)));
}
