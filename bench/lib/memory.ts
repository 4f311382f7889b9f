/** @module Memory sampling: a forced GC for a clean baseline, then the peak heap and RSS while work runs. */

import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

let gc: (() => void) | undefined;

/** Runs a full garbage collection (exposing `gc` at run time, no node flag needed). */
export function forceGC(): void {
  if (!gc) {
    setFlagsFromString("--expose-gc");
    gc = runInNewContext("gc") as () => void;
  }
  gc();
  gc();
}

/** Peaks over the baseline taken when sampling started, in bytes. */
export interface MemoryPeaks {
  heapDelta: number;
  rssDelta: number;
  samples: number;
}

/** Starts sampling `process.memoryUsage()` every `intervalMs`; `stop()` returns the peaks. */
export function sampleMemory(intervalMs = 5): { stop: () => MemoryPeaks } {
  forceGC();
  const base = process.memoryUsage();
  let heap = base.heapUsed;
  let rss = base.rss;
  let samples = 0;
  const sample = () => {
    const now = process.memoryUsage();
    heap = Math.max(heap, now.heapUsed);
    rss = Math.max(rss, now.rss);
    samples++;
  };
  const timer = setInterval(sample, intervalMs);
  return {
    stop: () => {
      clearInterval(timer);
      sample();
      return { heapDelta: heap - base.heapUsed, rssDelta: rss - base.rss, samples };
    },
  };
}
