/**
 * @module Mid-stream failures: the one pass-through every model stream is read through, which
 * turns a failure while reading (an `{"error": …}` event, a cut connection) into a typed error
 * that keeps the output received so far, and hands the first chunks their response's metadata.
 */
import { type RawChoice, textOfChoice } from "./completion.js";
import { asServiceError, type FailureContext } from "./error_mapper.js";
import { streamMeta, tagChunk } from "./response_meta.js";

/**
 * Passes a stream through unchanged. A plain iterator, not an async generator: it sits on every
 * chunk of every stream.
 */
export function tagStream<T extends object>(
  stream: AsyncIterable<T>,
  headers: Headers,
  ctx: FailureContext,
): AsyncIterableIterator<T> {
  const meta = streamMeta(headers);
  const source = stream[Symbol.asyncIterator]();
  let partialOutput = "";
  return {
    [Symbol.asyncIterator]() {
      return this;
    },
    async next() {
      let result: IteratorResult<T>;
      try {
        result = await source.next();
      } catch (error) {
        throw asServiceError(error, { ...ctx, partialOutput, midStream: true });
      }
      if (!result.done) {
        const chunk = result.value;
        if (!meta.announced) tagChunk(meta, chunk);
        const choice = (chunk as { choices?: RawChoice[] }).choices?.[0];
        if (choice !== undefined) partialOutput += textOfChoice(choice, "delta") ?? "";
      }
      return result;
    },
    async return(value?: unknown) {
      await source.return?.(value);
      return { done: true, value: undefined };
    },
  };
}
