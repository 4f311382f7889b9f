/** @module The console's chart: tokens per time slice as bars, cumulative cost as a line. */

import type { RequestLogEntry } from "../state/state_records.js";
import { byId } from "./dom.js";
import { money, shortTime } from "./format.js";

const SLICES = 30;
const PAD = { left: 44, right: 70, top: 10, bottom: 20 };

/** The plot area of a canvas, in CSS pixels. */
interface Plot {
  g: CanvasRenderingContext2D;
  width: number;
  height: number;
  plotW: number;
  plotH: number;
}

/** Draws `log` over the logged period; redrawn on every poll and on resize. */
export function drawChart(log: readonly RequestLogEntry[]): void {
  const plot = preparedCanvas(byId<HTMLCanvasElement>("chart"));
  if (!plot) return;
  const { g, plotH } = plot;
  g.fillStyle = "#667085";
  g.font = "11px system-ui, sans-serif";
  if (log.length === 0) {
    g.fillText(
      "Tokens and cost appear here as requests arrive.",
      PAD.left + 8,
      PAD.top + plotH / 2,
    );
    return;
  }
  const times = log.map((entry) => Date.parse(entry.time));
  const start = times[0]!;
  const end = Math.max(times[times.length - 1]!, start + 1000);
  const { tokens, cost } = sliced(log, times, start, end);
  const maxTokens = tokens.reduce((max, t) => Math.max(max, t), 1);
  let running = 0;
  const cumulative = cost.map((c) => {
    running += c;
    return running;
  });
  const maxCost = Math.max(running, 1e-9);
  drawBars(plot, tokens, maxTokens);
  drawLine(plot, cumulative, maxCost);
  drawLabels(plot, { maxTokens, maxCost, start, end });
}

/** The canvas sized to its box at the screen's pixel ratio, cleared, with its axis drawn. */
function preparedCanvas(canvas: HTMLCanvasElement): Plot | undefined {
  const ratio = window.devicePixelRatio || 1;
  const width = canvas.clientWidth;
  const height = canvas.clientHeight;
  canvas.width = width * ratio;
  canvas.height = height * ratio;
  const g = canvas.getContext("2d");
  if (!g) return undefined;
  g.scale(ratio, ratio);
  g.clearRect(0, 0, width, height);
  const plotW = width - PAD.left - PAD.right;
  const plotH = height - PAD.top - PAD.bottom;
  g.strokeStyle = "#e4e7ec";
  g.beginPath();
  g.moveTo(PAD.left, PAD.top + plotH + 0.5);
  g.lineTo(PAD.left + plotW, PAD.top + plotH + 0.5);
  g.stroke();
  return { g, width, height, plotW, plotH };
}

/** Tokens and cost summed per time slice. */
function sliced(
  log: readonly RequestLogEntry[],
  times: readonly number[],
  start: number,
  end: number,
): { tokens: number[]; cost: number[] } {
  const slice = (end - start) / SLICES;
  const tokens = new Array<number>(SLICES).fill(0);
  const cost = new Array<number>(SLICES).fill(0);
  log.forEach((entry, i) => {
    const at = Math.min(SLICES - 1, Math.floor((times[i]! - start) / slice));
    tokens[at]! += entry.totalTokens;
    cost[at]! += entry.cost;
  });
  return { tokens, cost };
}

function drawBars({ g, plotW, plotH }: Plot, tokens: readonly number[], maxTokens: number): void {
  const barW = plotW / SLICES;
  g.fillStyle = "#91a7ff";
  tokens.forEach((t, i) => {
    const h = (t / maxTokens) * plotH;
    g.fillRect(PAD.left + i * barW + 1, PAD.top + plotH - h, Math.max(1, barW - 2), h);
  });
}

function drawLine({ g, plotW, plotH }: Plot, cumulative: readonly number[], maxCost: number): void {
  const barW = plotW / SLICES;
  g.strokeStyle = "#e8590c";
  g.lineWidth = 2;
  g.beginPath();
  cumulative.forEach((c, i) => {
    const x = PAD.left + (i + 0.5) * barW;
    const y = PAD.top + plotH - (c / maxCost) * plotH;
    if (i === 0) g.moveTo(x, y);
    else g.lineTo(x, y);
  });
  g.stroke();
}

function drawLabels(
  { g, height, plotW, plotH }: Plot,
  range: { maxTokens: number; maxCost: number; start: number; end: number },
): void {
  g.fillStyle = "#667085";
  g.fillText(String(range.maxTokens), 4, PAD.top + 10);
  g.fillText("0", 4, PAD.top + plotH);
  g.fillText(money(range.maxCost), PAD.left + plotW + 4, PAD.top + 10);
  g.fillText(shortTime(new Date(range.start).toISOString()), PAD.left, height - 4);
  const endLabel = shortTime(new Date(range.end).toISOString());
  g.fillText(endLabel, PAD.left + plotW - g.measureText(endLabel).width, height - 4);
}
