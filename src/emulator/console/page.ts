/**
 * @module The console page: what a browser, or a client whose base URL misses `/v1`, gets for any
 * path outside the API (docs/service-contract.md#hosted-models, rule 2, docs/service-contract.md#errors HTML 200 row). Static HTML; its script fills it from the
 * admin API.
 */

import { createHash } from "node:crypto";
import { type EmulatorResponse, REQUEST_ID_HEADER } from "../reply.js";
// Bundled from browser/ by `npm run build:console` (see scripts/console_bundle.ts): one
// committed module, so vitest, tsx and tsup all inline the same script.
import { CONSOLE_SCRIPT } from "./script.generated.js";
import { CONSOLE_STYLE } from "./style.js";

const BODY = `
<aside>
  <h1>Inference Service</h1>
  <span class="tag">local emulator</span>
  <div class="tenant">
    <div class="label">Tenant</div>
    <div class="name" id="tenant-name">…</div>
    <div class="label">Tenant ID</div>
    <code id="tenant-id">…</code>
  </div>
  <nav>
    <a href="#keys">API keys</a>
    <a href="#endpoints">Dedicated endpoints</a>
    <a href="#wallet">Wallet</a>
    <a href="#requests">Requests</a>
    <a href="#models">Models</a>
    <a href="#faults">Fault injection</a>
  </nav>
  <p class="hint">This is the console page of the local emulator, not the API. API clients use this
  base URL: <code id="base-url">…/inference/v1</code></p>
</aside>
<main>
  <header class="top">
    <h2>Inference Service Console</h2>
    <span id="status">Connecting…</span>
    <button id="reset" type="button" title="Back to the configured keys, endpoints, models and credit">Reset emulator</button>
  </header>

  <section id="wallet" class="wide">
    <h3>Wallet</h3>
    <div class="wallet-row">
      <div class="wallet"><span class="amount" id="wallet-credit">…</span><span class="muted">credit</span></div>
      <p class="muted">Hosted calls need credit above zero; at zero they get 403 insufficient_user_quota.</p>
      <form class="inline" id="topup-form">
        <input id="topup-amount" type="number" min="0.000001" step="any" value="10" aria-label="Top-up amount">
        <button class="primary" type="submit" id="topup">Top up</button>
      </form>
    </div>
  </section>

  <section id="faults" class="wide">
    <h3>Fault injection</h3>
    <!-- One switch per fault kind, built by the script from the admin API's list. -->
    <div id="fault-switches"></div>
    <label class="muted">Rate <input id="fault-rate" type="number" min="0" max="1" step="0.05" value="0.5"></label>
    <p class="muted" id="fault-summary"></p>
  </section>

  <section id="keys" class="wide">
    <h3>API keys <span class="count" id="key-count"></span></h3>
    <table>
      <thead><tr><th>Name</th><th>Key</th><th>Permissions</th><th>Expires</th><th>Status</th><th></th></tr></thead>
      <tbody id="key-rows"></tbody>
    </table>
    <form class="inline" id="key-form">
      <input id="key-name" placeholder="Key name" maxlength="64" aria-label="Key name">
      <label><input id="key-permission" type="checkbox" checked> Inference Service</label>
      <select id="key-expiry" aria-label="Expiry">
        <option value="0">Never expires</option>
        <option value="1">Expires in 1 hour</option>
        <option value="24">Expires in 1 day</option>
        <option value="720">Expires in 30 days</option>
        <option value="-1">Already expired (for tests)</option>
      </select>
      <button class="primary" type="submit" id="create-key">Create key</button>
    </form>
    <div class="secret" id="new-secret" hidden>
      <div>New key <b id="new-secret-name"></b>: copy it now, it is shown only once.</div>
      <code id="new-secret-value"></code>
      <div class="inline"><button type="button" id="copy-secret">Copy</button>
      <button type="button" id="dismiss-secret">Done</button></div>
    </div>
  </section>

  <section id="endpoints" class="wide">
    <h3>Dedicated endpoints <span class="count" id="endpoint-count"></span></h3>
    <table>
      <thead><tr><th>Service-Name</th><th>Job alias</th><th>Scaling</th><th>State</th><th></th></tr></thead>
      <tbody id="endpoint-rows"></tbody>
    </table>
  </section>

  <section id="requests" class="wide">
    <h3>Requests <button type="button" id="clear-log">Clear</button></h3>
    <div class="totals">
      <div><div class="muted">Requests</div><b id="total-requests">0</b></div>
      <div><div class="muted">Tokens</div><b id="total-tokens">0</b></div>
      <div><div class="muted">Cost</div><b id="total-cost">0</b></div>
    </div>
    <canvas id="chart" aria-label="Tokens and cost over time"></canvas>
    <div class="legend"><span class="tokens">tokens</span><span class="cost">cumulative cost</span></div>
    <div class="scroll"><table>
      <thead><tr><th>Time</th><th>Status</th><th>Model or Service-Name</th><th>Tokens</th><th>Cost</th><th>Request ID</th></tr></thead>
      <tbody id="request-rows"></tbody>
    </table></div>
    <p class="muted">Click a request to see its body and its reply (kept for the last 50 calls, keys masked).</p>
    <div id="request-detail" class="detail" hidden>
      <div class="detail-head">
        <b>Request <code id="detail-id"></code></b>
        <span id="detail-summary" class="muted"></span>
        <button type="button" id="detail-close">Close</button>
      </div>
      <div class="detail-grid">
        <div>
          <h4>Request</h4>
          <div class="mono" id="detail-request-line"></div>
          <pre class="headers" id="detail-request-headers"></pre>
          <pre id="detail-request-body"></pre>
        </div>
        <div>
          <h4>Response</h4>
          <div class="mono" id="detail-response-line"></div>
          <pre class="headers" id="detail-response-headers"></pre>
          <pre id="detail-response-body"></pre>
        </div>
      </div>
    </div>
  </section>

  <section id="models" class="wide">
    <h3>Hosted models</h3>
    <table>
      <thead><tr><th>Model ID</th><th>Kind and APIs</th><th>Input price</th><th>Output price</th><th>Context window</th></tr></thead>
      <tbody id="model-rows"></tbody>
    </table>
    <p class="muted">Prices in credit per million tokens.</p>
  </section>
</main>`;

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Inference Service Console (emulator)</title>
<style>${CONSOLE_STYLE}</style>
</head>
<body>${BODY}
<script>${CONSOLE_SCRIPT}</script>
</body>
</html>
`;

const sha256 = (text: string) => `'sha256-${createHash("sha256").update(text).digest("base64")}'`;

// Only this page's own script and style run, it talks to its own origin only, and no other
// site may frame it (the buttons change the emulator).
const SECURITY_HEADERS = {
  "Content-Security-Policy": [
    "default-src 'none'",
    `script-src ${sha256(CONSOLE_SCRIPT)}`,
    `style-src ${sha256(CONSOLE_STYLE)}`,
    "connect-src 'self'",
    "img-src 'self' data:",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join("; "),
  "X-Content-Type-Options": "nosniff",
  "Referrer-Policy": "no-referrer",
};

/**
 * 200 `text/html`: the console page (docs/service-contract.md#hosted-models, rule 2). SDKs raise nothing here: the failure shows when
 * the caller reads `choices` (docs/service-contract.md#errors, rule 4), which is what users must be able to test. Built once:
 * the HTML-200 case must stay as cheap as any other reply.
 */
export function consolePage(requestId: string): EmulatorResponse {
  return {
    kind: "response",
    status: 200,
    headers: {
      "Content-Type": "text/html; charset=utf-8",
      ...SECURITY_HEADERS,
      [REQUEST_ID_HEADER]: requestId,
    },
    body: PAGE,
    abort: false,
    delayMs: 0,
  };
}
