/**
 * @module The console page's script: plain browser JavaScript that reads and changes the emulator
 * through its admin API (same origin, JSON), polling once a second. Every value from the state is
 * written with `textContent`, never as HTML: request-log fields come from any caller.
 */

// No template literals or `${` inside: this text is itself a template literal.
// biome-ignore lint/complexity/noUselessStringRaw: keeps a future "\n" in the script a backslash escape
export const CONSOLE_SCRIPT = String.raw`
"use strict";
(function () {
  // Filled from the admin API's list on the first state, so the switches never lag behind it.
  var FAULT_KINDS = [];
  var POLL_MS = 1000;
  var state = null;
  var log = [];
  var lastId = null;
  var statusEl = byId("status");

  function byId(id) { return document.getElementById(id); }

  function el(tag, props, children) {
    var node = document.createElement(tag);
    Object.keys(props || {}).forEach(function (key) {
      if (key === "text") node.textContent = props[key];
      else if (key === "className") node.className = props[key];
      else if (key === "dataset") Object.assign(node.dataset, props[key]);
      else if (key.slice(0, 2) === "on") node.addEventListener(key.slice(2), props[key]);
      else node.setAttribute(key, props[key]);
    });
    (children || []).forEach(function (child) {
      node.appendChild(typeof child === "string" ? document.createTextNode(child) : child);
    });
    return node;
  }

  function replaceRows(tbody, rows, emptyText, columns) {
    tbody.replaceChildren.apply(tbody, rows.length > 0 ? rows : [
      el("tr", { className: "empty-row" }, [el("td", { colspan: String(columns), text: emptyText })]),
    ]);
  }

  function api(method, path, body) {
    var init = { method: method, headers: {} };
    if (method !== "GET") {
      // The admin API refuses writes that are not JSON: the guard against cross-site requests.
      init.headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(body === undefined ? {} : body);
    }
    return fetch("/_emulator" + path, init).then(function (response) {
      return response.json().then(function (json) {
        if (!response.ok) throw new Error((json.error && json.error.message) || "HTTP " + response.status);
        return json;
      });
    });
  }

  function act(promise) {
    return promise.then(refresh).catch(function (error) { showStatus(error.message, true); });
  }

  function showStatus(text, isError) {
    statusEl.textContent = text;
    statusEl.className = isError ? "error" : "live";
  }

  function money(value) { return Number(value).toFixed(6); }
  function shortTime(iso) { return new Date(iso).toLocaleTimeString(); }

  // ---- state -----------------------------------------------------------------------------

  function renderState() {
    var tenant = state.tenants[0] || { id: "", name: "" };
    byId("tenant-name").textContent = tenant.name;
    byId("tenant-id").textContent = tenant.id;
    byId("base-url").textContent = location.origin + "/inference/v1";

    var amount = byId("wallet-credit");
    amount.textContent = money(state.credit);
    amount.className = "amount" + (state.credit <= 0 ? " empty" : "");

    byId("key-count").textContent = "(" + state.keys.length + ")";
    replaceRows(byId("key-rows"), state.keys.map(keyRow), "No API keys", 6);
    byId("endpoint-count").textContent = "(" + state.endpoints.length + ")";
    replaceRows(byId("endpoint-rows"), state.endpoints.map(endpointRow), "No endpoints", 5);
    replaceRows(byId("model-rows"), state.models.map(modelRow), "No models", 5);
    renderFaults(state.faults);
  }

  function keyRow(key) {
    var status = key.expired
      ? el("span", { className: "badge bad", text: "Expired" })
      : el("span", { className: "badge ok", text: "Active" });
    return el("tr", { dataset: { keyId: key.id } }, [
      el("td", {}, [el("div", { text: key.name }), el("div", { className: "muted mono", text: key.id })]),
      el("td", { className: "mono", text: key.secret }),
      el("td", { text: key.permissions.length > 0 ? key.permissions.join(", ") : "none (hosted only)" }),
      el("td", { text: key.expiresAt ? new Date(key.expiresAt).toLocaleString() : "Never" }),
      el("td", {}, [status]),
      el("td", {}, [el("button", {
        className: "danger revoke", text: "Revoke",
        onclick: function () { act(api("DELETE", "/keys/" + encodeURIComponent(key.id))); },
      })]),
    ]);
  }

  function endpointRow(endpoint) {
    var running = endpoint.state === "Running";
    return el("tr", { dataset: { serviceName: endpoint.serviceName } }, [
      el("td", {}, [el("code", { text: endpoint.serviceName })]),
      el("td", { text: endpoint.jobAlias }),
      el("td", { className: "num scaling", text: endpoint.scaling }),
      el("td", {}, [el("span", { className: "badge state " + (running ? "ok" : "warn"), text: endpoint.state })]),
      el("td", {}, [el("button", {
        className: "toggle", text: running ? "Set Pending" : "Set Running",
        onclick: function () {
          act(api("PATCH", "/endpoints/" + encodeURIComponent(endpoint.serviceName),
            { state: running ? "Pending" : "Running" }));
        },
      })]),
    ]);
  }

  function modelRow(model) {
    var context = model.profile && model.profile.maxInputTokens;
    return el("tr", {}, [
      el("td", {}, [el("code", { text: model.id })]),
      el("td", { text: model.embedding ? "embeddings, " + model.embedding.dimensions + " dimensions" : "chat" }),
      el("td", { className: "num", text: String(model.prices.input) }),
      el("td", { className: "num", text: String(model.prices.output) }),
      el("td", { className: "num", text: context ? String(context) : "—" }),
    ]);
  }

  function buildFaultSwitches(kinds) {
    FAULT_KINDS = kinds.slice();
    byId("fault-switches").replaceChildren.apply(byId("fault-switches"), FAULT_KINDS.map(function (kind) {
      var box = el("input", { type: "checkbox", dataset: { fault: kind }, onchange: applyFaults });
      return el("label", { className: "switch" }, [box, " ", el("code", { text: kind })]);
    }));
  }

  function renderFaults(faults) {
    if (FAULT_KINDS.length === 0) buildFaultSwitches(faults.available || []);
    var on = faults.rate > 0;
    FAULT_KINDS.forEach(function (kind) {
      var box = document.querySelector('input[data-fault="' + kind + '"]');
      if (document.activeElement !== box) box.checked = on && faults.kinds.indexOf(kind) >= 0;
    });
    var rate = byId("fault-rate");
    if (document.activeElement !== rate && on) rate.value = String(faults.rate);
    byId("fault-summary").textContent = on
      ? Math.round(faults.rate * 100) + "% of authenticated calls get one of: " + faults.kinds.join(", ")
      : "Off: calls fail only when they send the X-Emulator-Fault header.";
  }

  function applyFaults() {
    var kinds = FAULT_KINDS.filter(function (kind) {
      return document.querySelector('input[data-fault="' + kind + '"]').checked;
    });
    var rate = Number(byId("fault-rate").value);
    act(api("PUT", "/faults", kinds.length > 0 ? { rate: rate, kinds: kinds } : { rate: 0 }));
  }

  // ---- request log -----------------------------------------------------------------------

  function renderLog() {
    var tokens = 0, cost = 0;
    log.forEach(function (entry) { tokens += entry.totalTokens; cost += entry.cost; });
    byId("total-requests").textContent = String(log.length);
    byId("total-tokens").textContent = String(tokens);
    byId("total-cost").textContent = money(cost);
    replaceRows(byId("request-rows"), log.slice(-50).reverse().map(requestRow),
      "No requests yet: call " + location.origin + "/inference/v1", 6);
    drawChart();
  }

  function requestRow(entry) {
    var kind = entry.status === 0 ? "bad" : entry.status < 300 ? "ok" : entry.status < 500 ? "warn" : "bad";
    var label = entry.status === 0 ? "closed" : String(entry.status);
    var status = [el("span", { className: "badge " + kind, text: label })];
    if (entry.fault) status.push(el("span", { className: "muted", text: " fault " + entry.fault }));
    return el("tr", { dataset: { requestId: entry.requestId } }, [
      el("td", { text: shortTime(entry.time) }),
      el("td", {}, status),
      el("td", {}, [el("code", { text: entry.model || entry.serviceName || "—" }),
        el("span", { className: "muted", text: entry.surface === "dedicated" ? " Service-Name" : "" })]),
      el("td", { className: "num", text: String(entry.totalTokens) }),
      el("td", { className: "num", text: money(entry.cost) }),
      el("td", { className: "mono", text: entry.requestId }),
    ]);
  }

  /** Tokens per time slice as bars, cumulative cost as a line, over the logged period. */
  function drawChart() {
    var canvas = byId("chart");
    var ratio = window.devicePixelRatio || 1;
    var width = canvas.clientWidth, height = canvas.clientHeight;
    canvas.width = width * ratio;
    canvas.height = height * ratio;
    var g = canvas.getContext("2d");
    g.scale(ratio, ratio);
    g.clearRect(0, 0, width, height);
    var pad = { left: 44, right: 70, top: 10, bottom: 20 };
    var plotW = width - pad.left - pad.right, plotH = height - pad.top - pad.bottom;
    g.strokeStyle = "#e4e7ec";
    g.beginPath();
    g.moveTo(pad.left, pad.top + plotH + 0.5);
    g.lineTo(pad.left + plotW, pad.top + plotH + 0.5);
    g.stroke();
    g.fillStyle = "#667085";
    g.font = "11px system-ui, sans-serif";
    if (log.length === 0) {
      g.fillText("Tokens and cost appear here as requests arrive.", pad.left + 8, pad.top + plotH / 2);
      return;
    }
    var times = log.map(function (entry) { return Date.parse(entry.time); });
    var start = times[0], end = Math.max(times[times.length - 1], start + 1000);
    var slices = 30, slice = (end - start) / slices;
    var tokens = new Array(slices).fill(0), cost = new Array(slices).fill(0);
    log.forEach(function (entry, i) {
      var at = Math.min(slices - 1, Math.floor((times[i] - start) / slice));
      tokens[at] += entry.totalTokens;
      cost[at] += entry.cost;
    });
    var maxTokens = Math.max.apply(null, tokens.concat([1]));
    var running = 0;
    var cumulative = cost.map(function (c) { running += c; return running; });
    var maxCost = Math.max(running, 1e-9);
    var barW = plotW / slices;
    g.fillStyle = "#91a7ff";
    tokens.forEach(function (t, i) {
      var h = (t / maxTokens) * plotH;
      g.fillRect(pad.left + i * barW + 1, pad.top + plotH - h, Math.max(1, barW - 2), h);
    });
    g.strokeStyle = "#e8590c";
    g.lineWidth = 2;
    g.beginPath();
    cumulative.forEach(function (c, i) {
      var x = pad.left + (i + 0.5) * barW, y = pad.top + plotH - (c / maxCost) * plotH;
      if (i === 0) g.moveTo(x, y); else g.lineTo(x, y);
    });
    g.stroke();
    g.fillStyle = "#667085";
    g.fillText(String(maxTokens), 4, pad.top + 10);
    g.fillText("0", 4, pad.top + plotH);
    g.fillText(money(maxCost).slice(0, 8), pad.left + plotW + 4, pad.top + 10);
    g.fillText(shortTime(new Date(start).toISOString()), pad.left, height - 4);
    var endLabel = shortTime(new Date(end).toISOString());
    g.fillText(endLabel, pad.left + plotW - g.measureText(endLabel).width, height - 4);
  }

  // ---- polling ---------------------------------------------------------------------------

  function refresh() {
    var query = lastId ? "?after=" + encodeURIComponent(lastId) : "";
    return Promise.all([api("GET", "/state"), api("GET", "/requests" + query)]).then(function (results) {
      state = results[0];
      var page = results[1];
      log = page.continued ? log.concat(page.requests) : page.requests;
      if (log.length > 0) lastId = log[log.length - 1].requestId;
      else lastId = null;
      renderState();
      renderLog();
      showStatus("Live", false);
    });
  }

  function poll() {
    refresh().catch(function (error) { showStatus("Emulator unreachable: " + error.message, true); })
      .then(function () { setTimeout(poll, POLL_MS); });
  }

  // ---- actions ---------------------------------------------------------------------------

  byId("key-form").addEventListener("submit", function (event) {
    event.preventDefault();
    var hours = Number(byId("key-expiry").value);
    var body = {
      name: byId("key-name").value.trim() || undefined,
      permissions: byId("key-permission").checked ? ["Inference Service"] : [],
    };
    if (hours !== 0) body.expiresAt = new Date(Date.now() + hours * 3600 * 1000).toISOString();
    api("POST", "/keys", body).then(function (key) {
      // The full secret is in this reply only: the console shows it once, like the service's.
      byId("new-secret-value").textContent = key.secret;
      byId("new-secret-name").textContent = key.name;
      byId("new-secret").hidden = false;
      byId("key-name").value = "";
      return refresh();
    }).catch(function (error) { showStatus(error.message, true); });
  });
  byId("copy-secret").addEventListener("click", function () {
    navigator.clipboard.writeText(byId("new-secret-value").textContent).catch(function () {});
  });
  byId("dismiss-secret").addEventListener("click", function () {
    byId("new-secret-value").textContent = "";
    byId("new-secret").hidden = true;
  });
  byId("topup-form").addEventListener("submit", function (event) {
    event.preventDefault();
    act(api("POST", "/top-up", { amount: Number(byId("topup-amount").value) }));
  });
  byId("clear-log").addEventListener("click", function () { act(api("DELETE", "/requests")); });
  byId("reset").addEventListener("click", function () {
    byId("new-secret").hidden = true;
    act(api("POST", "/reset"));
  });
  byId("fault-rate").addEventListener("change", applyFaults);
  window.addEventListener("resize", drawChart);
  poll();
})();
`;
