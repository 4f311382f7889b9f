/**
 * @module How an API words a refusal of its request's inputs (data of its row, `transport/apis.ts`),
 * and the one function that applies that wording to an error's row.
 */
import * as errors from "./errors.js";
import type { ErrorRow } from "./gateway_codes.js";
import { fillParts } from "./status_rows.js";

/** What of an error's row the wording changes. */
type WordedRow = Pick<ErrorRow, "cls" | "summary" | "hint">;

/**
 * How an API words a refusal of its request's inputs — too long for the model, or blocked for
 * their content — in place of chat's advice about messages. Data of the API's row.
 */
export interface InputWording {
  /**
   * Whether the refusal names the inputs the request carried by their positions among the
   * call's (the context's `inputs`); only a request that knows them is reworded then.
   */
  byPosition?: boolean;
  /**
   * A `ContextLengthExceededError`: its summary, where `{which}` is the inputs ("The input at
   * position 3 is", "The inputs at positions 0–7 include one") and `{message}` the service's
   * words; its hint, and the hint when the request carried several inputs.
   */
  tooLong: { summary: string; hint: string; hintSeveral?: string };
}

/** The classes that are about the inputs of a request, not its parameters. */
const INPUT_REFUSALS: ReadonlySet<ErrorRow["cls"]> = new Set([
  errors.ContextLengthExceededError,
  errors.ContentFilterError,
]);

/**
 * A refusal of the request's inputs themselves, as its API words it (`ctx.inputWording`): an
 * input too long for the model is told to be split, not chat's advice about messages; an API
 * whose requests carry numbered inputs names them, and the position of the one input when there
 * was one.
 */
export function aboutInputs<R extends WordedRow>(
  row: R,
  ctx: { inputWording?: InputWording; inputs?: { first: number; count: number } },
  message: string | undefined,
): R & { inputIndex?: number } {
  const wording = ctx.inputWording;
  if (wording === undefined || !INPUT_REFUSALS.has(row.cls)) return row;
  const { inputs } = ctx;
  if (wording.byPosition && inputs === undefined) return row;
  const one = inputs === undefined || inputs.count === 1;
  const which =
    inputs === undefined
      ? ""
      : one
        ? `the input at position ${inputs.first}`
        : `the inputs at positions ${inputs.first}–${inputs.first + inputs.count - 1}`;
  const inputIndex = inputs !== undefined && one ? inputs.first : undefined;
  if (row.cls === errors.ContextLengthExceededError) {
    const { tooLong } = wording;
    const Which =
      which && `${which[0]!.toUpperCase()}${which.slice(1)} ${one ? "is" : "include one"}`;
    const said = message ? `: ${message.replace(/\.$/, "")}` : "";
    return {
      ...row,
      summary: fillParts(tooLong.summary, { which: Which, message: said }),
      hint: one ? tooLong.hint : (tooLong.hintSeveral ?? tooLong.hint),
      ...(inputIndex !== undefined ? { inputIndex } : {}),
    };
  }
  if (!which) return row;
  return { ...row, summary: `${row.summary.replace(/\.$/, "")} (${which}).`, inputIndex };
}
