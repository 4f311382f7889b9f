/** @module Test helper: a response body written slowly, as a server that drips its answer would. */

const encoder = new TextEncoder();

/**
 * A body that hands out `chunks` one every `everyMs`, then (`forever`) the last one again until
 * it is cancelled; it ends after the last chunk otherwise.
 */
export function dripBody(
  chunks: readonly string[],
  everyMs: number,
  forever = false,
): ReadableStream<Uint8Array> {
  let next = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  return new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        return new Promise<void>((resolve) => {
          timer = setTimeout(() => {
            const chunk = chunks[Math.min(next++, chunks.length - 1)] ?? "";
            if (next > chunks.length && !forever) controller.close();
            else controller.enqueue(encoder.encode(chunk));
            resolve();
          }, everyMs);
        });
      },
      cancel() {
        clearTimeout(timer);
      },
    },
    { highWaterMark: 0 },
  );
}
