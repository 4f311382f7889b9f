/** @module The machine and run a results file describes. */

import { cpus, loadavg, totalmem } from "node:os";

/** The 1-minute load average, to show how busy the machine was. */
export function load(): string {
  return loadavg()[0]!.toFixed(2);
}

/** Markdown lines: CPU, cores, memory, Node version, date, command, load at start and end. */
export function describeRun(command: string, loadAtStart: string): string[] {
  const cpu = cpus();
  return [
    `- **Machine:** ${cpu[0]?.model.trim() ?? "unknown CPU"}, ${cpu.length} cores, ` +
      `${(totalmem() / 2 ** 30).toFixed(1)} GiB memory (${process.platform} ${process.arch})`,
    `- **Node:** ${process.version}`,
    `- **Date:** ${new Date().toISOString()}`,
    `- **Command:** \`${command}\``,
    `- **Load average (1 min):** ${loadAtStart} at start, ${load()} at end — other work on the ` +
      "machine adds noise; the interleaved rounds spread it over all contenders alike",
  ];
}
