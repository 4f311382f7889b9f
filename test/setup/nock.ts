/**
 * @module nock as each file of test:fast's `nock` project (vitest.fast.config.ts: files that use
 * nock, several to a process) would find it on a fresh import: active, with no interceptor and
 * net connect allowed. After the file, whatever it left is dropped (interceptors, requests in
 * flight, a disabled net connect) and nock is taken off the process's fetch and http, to be put
 * back for the next file.
 */
import nock from "nock";
import { afterAll } from "vitest";

// Before the file is imported: a file may set its interceptors up at its top level.
if (!nock.isActive()) nock.activate();

afterAll(() => {
  nock.abortPendingRequests();
  nock.cleanAll();
  nock.enableNetConnect();
  nock.restore();
});
