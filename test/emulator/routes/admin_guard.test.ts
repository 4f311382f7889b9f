import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningEmulator, startEmulator } from "../../../src/emulator/index.js";
import { refuseAdmin, trustedHosts } from "../../../src/emulator/routes/admin_guard.js";
import { inProcess } from "../helpers.js";

const request = (method: string, headers: Record<string, string> = {}) => ({
  method,
  url: "/_emulator/credit",
  headers,
  body: "{}",
});
const loopback = trustedHosts("127.0.0.1");
const JSON_TYPE = { "content-type": "application/json" };

describe("refuseAdmin", () => {
  it("serves reads and same-origin JSON writes, and callers that send no Host or Origin", () => {
    expect(refuseAdmin(request("GET", { host: "127.0.0.1:8787" }), loopback)).toBeUndefined();
    const sameOrigin = {
      ...JSON_TYPE,
      host: "127.0.0.1:8787",
      origin: "http://127.0.0.1:8787",
      "sec-fetch-site": "same-origin",
    };
    expect(refuseAdmin(request("PUT", sameOrigin), loopback)).toBeUndefined();
    expect(refuseAdmin(request("POST", JSON_TYPE), loopback)).toBeUndefined();
    expect(
      refuseAdmin(request("DELETE", { ...JSON_TYPE, host: "localhost:1" }), loopback),
    ).toBeUndefined();
  });

  it("refuses writes not labelled JSON with 415: the simple requests browsers send across sites", () => {
    for (const type of [
      "text/plain",
      "application/x-www-form-urlencoded",
      "multipart/form-data",
      "",
    ]) {
      expect(refuseAdmin(request("POST", { "content-type": type }), loopback)).toMatchObject({
        status: 415,
        code: "unsupported_media_type",
      });
    }
  });

  it("refuses a write from another origin or site with 403 cross_origin", () => {
    const host = { ...JSON_TYPE, host: "127.0.0.1:8787" };
    expect(
      refuseAdmin(request("PUT", { ...host, origin: "http://evil.example" }), loopback),
    ).toMatchObject({ status: 403, code: "cross_origin" });
    expect(refuseAdmin(request("PUT", { ...host, origin: "null" }), loopback)).toMatchObject({
      status: 403,
    });
    expect(
      refuseAdmin(request("PUT", { ...host, "sec-fetch-site": "cross-site" }), loopback),
    ).toMatchObject({ status: 403, code: "cross_origin" });
  });

  it("refuses any request for a host name it does not trust: a DNS-rebinding page", () => {
    expect(refuseAdmin(request("GET", { host: "evil.example:8787" }), loopback)).toMatchObject({
      status: 403,
      code: "untrusted_host",
    });
  });

  it("trusts loopback names and the listening interface, every name on a wildcard", () => {
    for (const name of ["localhost", "app.localhost", "127.0.0.1", "127.1.2.3", "[::1]"]) {
      expect(loopback(name)).toBe(true);
    }
    expect(trustedHosts("192.168.1.5")("192.168.1.5")).toBe(true);
    expect(trustedHosts("::1")("[::1]")).toBe(true);
    expect(loopback("192.168.1.5")).toBe(false);
    expect(trustedHosts("0.0.0.0")("anything.example")).toBe(true);
  });
});

describe("the admin API's guard over node:http", () => {
  let emulator: RunningEmulator;
  beforeAll(async () => {
    emulator = await startEmulator();
  });
  afterAll(() => emulator.close());

  const put = (headers: Record<string, string>) =>
    fetch(`${emulator.url}/_emulator/credit`, {
      method: "PUT",
      headers,
      body: JSON.stringify({ credit: 0 }),
    });

  it("changes nothing for a text/plain write, the request a cross-site form or fetch can send", async () => {
    const response = await put({ "content-type": "text/plain" });
    expect(response.status).toBe(415);
    expect(await response.json()).toEqual({
      error: {
        code: "unsupported_media_type",
        message: "Admin writes need Content-Type: application/json",
        type: "emulator_admin_error",
      },
    });
    expect(emulator.state.credit).toBe(10);
  });

  it("changes nothing for a JSON write from another origin, and applies one from its own", async () => {
    expect((await put({ ...JSON_TYPE, origin: "http://evil.example" })).status).toBe(403);
    expect(emulator.state.credit).toBe(10);
    const own = await put({ ...JSON_TYPE, origin: emulator.url });
    expect(own.status).toBe(200);
    expect(emulator.state.credit).toBe(0);
    emulator.state.reset();
  });
});

describe("the admin API's guard in-process", () => {
  it("also wants JSON writes: fetch labels a string body text/plain", async () => {
    const emulator = inProcess();
    const response = await emulator.fetch(`${emulator.url}/_emulator/reset`, {
      method: "POST",
      body: "{}",
    });
    expect(response.status).toBe(415);
  });
});
