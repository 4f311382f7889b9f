/** @module The HTML console page served for any path outside the API (§4.2 rule 2, §7 HTML 200 row). */

import { type EmulatorResponse, REQUEST_ID_HEADER } from "./reply.js";

// Built once: the page is static, and the HTML-200 case must be as cheap as any other reply.
const PAGE = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Inference Service Console (emulator)</title></head>
<body>
<h1>Inference Service Console</h1>
<p>This is the console page of the local inference service emulator, not the API.</p>
<p>API clients must use the base URL ending in <code>/inference/v1</code>.
The emulator's state is at <a href="/_emulator/state"><code>/_emulator/state</code></a>.</p>
</body>
</html>
`;

/**
 * 200 `text/html` for a base URL missing `/v1` (§4.2 rule 2). SDKs raise nothing here: the failure
 * shows when the caller reads `choices` (§7 rule 4), which is what users must be able to test.
 */
export function consolePage(requestId: string): EmulatorResponse {
  return {
    kind: "response",
    status: 200,
    headers: { "Content-Type": "text/html; charset=utf-8", [REQUEST_ID_HEADER]: requestId },
    body: PAGE,
    abort: false,
    delayMs: 0,
  };
}
