/** @module The console page's stylesheet: plain CSS, inlined into the page (no build step, no request). */

// biome-ignore lint/complexity/noUselessStringRaw: keeps a future CSS escape ("\2014") as written
export const CONSOLE_STYLE = String.raw`
:root { --ink: #1d2433; --muted: #667085; --line: #e4e7ec; --bg: #f5f7fa; --card: #fff;
  --accent: #3b5bdb; --ok: #2b8a3e; --warn: #e8590c; --bad: #c92a2a; --side: #172036; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
  color: var(--ink); background: var(--bg); display: grid; grid-template-columns: 232px 1fr;
  min-height: 100vh; }
aside { background: var(--side); color: #d0d5dd; padding: 20px 16px; min-width: 0; }
aside code { overflow-wrap: anywhere; }
#base-url { display: block; margin-top: 4px; }
aside h1 { font-size: 16px; color: #fff; margin: 0 0 2px; }
aside .tag { display: inline-block; font-size: 11px; background: #3b5bdb; color: #fff;
  border-radius: 10px; padding: 1px 8px; }
.tenant { margin: 20px 0; padding: 12px; background: #222d47; border-radius: 8px; }
.tenant .label { font-size: 11px; text-transform: uppercase; letter-spacing: .04em; color: #98a2b3; }
.tenant .name { color: #fff; font-weight: 600; font-size: 15px; }
.tenant code { color: #a5d8ff; }
aside nav a { display: block; color: #d0d5dd; text-decoration: none; padding: 6px 8px;
  border-radius: 6px; }
aside nav a:hover { background: #222d47; color: #fff; }
aside .hint { font-size: 12px; color: #98a2b3; margin-top: 20px; }
main { padding: 20px 28px 40px; display: grid; gap: 18px; grid-template-columns: 1fr 1fr;
  align-content: start; }
header.top { grid-column: 1 / -1; display: flex; align-items: center; gap: 12px; }
header.top h2 { margin: 0; font-size: 20px; flex: 1; }
#status { font-size: 12px; color: var(--muted); }
#status.live::before { content: "● "; color: var(--ok); }
#status.error { color: var(--bad); }
section { background: var(--card); border: 1px solid var(--line); border-radius: 10px;
  padding: 14px 16px; min-width: 0; }
section.wide { grid-column: 1 / -1; }
section h3 { margin: 0 0 10px; font-size: 15px; display: flex; align-items: center; gap: 8px; }
section h3 .count { color: var(--muted); font-weight: 400; font-size: 13px; }
table { width: 100%; border-collapse: collapse; font-size: 13px; }
th { text-align: left; color: var(--muted); font-weight: 500; border-bottom: 1px solid var(--line);
  padding: 6px 8px; white-space: nowrap; }
td { border-bottom: 1px solid var(--line); padding: 6px 8px; vertical-align: middle; }
tr:last-child td { border-bottom: 0; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
code, .mono { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 12px; }
.badge { display: inline-block; border-radius: 10px; padding: 1px 8px; font-size: 12px;
  font-weight: 500; background: #eef2ff; color: var(--accent); }
.badge.ok { background: #ebfbee; color: var(--ok); }
.badge.warn { background: #fff4e6; color: var(--warn); }
.badge.bad { background: #fff5f5; color: var(--bad); }
button { font: inherit; border: 1px solid var(--line); background: #fff; color: var(--ink);
  border-radius: 6px; padding: 4px 10px; cursor: pointer; }
button:hover { border-color: var(--accent); color: var(--accent); }
button.primary { background: var(--accent); border-color: var(--accent); color: #fff; }
button.primary:hover { background: #364fc7; color: #fff; }
button.danger:hover { border-color: var(--bad); color: var(--bad); }
input, select { font: inherit; border: 1px solid var(--line); border-radius: 6px; padding: 4px 8px;
  background: #fff; color: var(--ink); }
form.inline { display: flex; flex-wrap: wrap; gap: 8px; align-items: center; margin-top: 10px; }
.wallet-row { display: flex; flex-wrap: wrap; align-items: center; gap: 8px 28px; }
.wallet-row p { margin: 0; flex: 1 1 220px; }
.wallet-row form.inline { margin-top: 0; }
.wallet { display: flex; align-items: baseline; gap: 10px; }
.wallet .amount { font-size: 28px; font-weight: 600; font-variant-numeric: tabular-nums; }
.wallet .amount.empty { color: var(--bad); }
.muted { color: var(--muted); font-size: 12px; }
.secret { margin-top: 10px; padding: 10px 12px; border: 1px solid #ffd8a8; background: #fff9db;
  border-radius: 8px; }
.secret code { font-size: 13px; user-select: all; word-break: break-all; }
#fault-switches { display: grid; grid-template-columns: repeat(auto-fill, minmax(260px, 1fr));
  gap: 6px 16px; margin-bottom: 10px; }
.switch { display: flex; align-items: flex-start; gap: 6px; }
.switch input { accent-color: var(--accent); margin-top: 3px; }
.switch .summary { display: block; color: var(--muted); font-size: 12px; line-height: 1.35; }
.switch .summary code { font-size: 11px; }
.totals { display: flex; gap: 24px; margin-bottom: 8px; }
.totals b { font-size: 18px; font-variant-numeric: tabular-nums; }
canvas { width: 100%; height: 150px; display: block; }
.legend { font-size: 12px; color: var(--muted); display: flex; gap: 14px; margin: 4px 0 10px; }
.legend span::before { content: ""; display: inline-block; width: 10px; height: 10px;
  border-radius: 2px; margin-right: 5px; vertical-align: -1px; }
.legend .tokens::before { background: #91a7ff; }
.legend .cost::before { background: #e8590c; }
.scroll { max-height: 320px; overflow: auto; }
tr.request { cursor: pointer; }
tr.request:hover td { background: #f8f9fc; }
tr.request.selected td { background: #eef2ff; }
.detail { margin-top: 12px; border: 1px solid var(--line); border-radius: 8px; padding: 10px 12px; }
.detail-head { display: flex; align-items: center; gap: 12px; }
.detail-head .muted { flex: 1; }
.detail-grid { display: grid; grid-template-columns: 1fr 1fr; gap: 14px; margin-top: 8px; }
.detail-grid > div { min-width: 0; }
.detail h4 { margin: 4px 0; font-size: 13px; }
.detail pre { margin: 6px 0 0; padding: 8px; background: var(--bg); border-radius: 6px;
  max-height: 320px; overflow: auto; font-size: 12px; white-space: pre-wrap; overflow-wrap: anywhere; }
.detail pre.headers { color: var(--muted); }
.empty-row td { color: var(--muted); text-align: center; padding: 14px; }
`;
