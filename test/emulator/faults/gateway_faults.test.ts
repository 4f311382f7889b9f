/**
 * The emulator's gateway replies, checked against the client's table of gateway codes: the
 * emulator sends the table's samples for the replies named after a code, and this test checks,
 * on the wire of both transports, that every row the emulator can inject arrives with the status
 * it comes with and its body to the byte.
 */
import { describe, expect, it } from "vitest";
import { GATEWAY_FAULTS } from "../../../src/emulator/faults/gateway_faults.js";
import { DEFAULT_MODEL, FAULT_HEADER } from "../../../src/emulator/index.js";
import { GATEWAY_CODES, type GatewayCode } from "../../../src/errors/gateway_codes.js";
import { sampleText } from "../../helpers/fixtures.js";
import { bearer, CHAT, chatBody, post, REQUEST_ID, TRANSPORTS, useEmulator } from "../helpers.js";

/** The emulator's replies that carry no code of the table: their status decides the class. */
const WITHOUT_A_CODE = ["429-cn", "429-empty", "403-model", "200-error", "503-sse", "html-json"];

/** The rows the emulator can inject: those named after a fault (the fault's name is the code). */
const INJECTABLE = GATEWAY_CODES.filter((row) => Object.hasOwn(GATEWAY_FAULTS, row.code));

const fault = (name: string) => ({ ...bearer(), [FAULT_HEADER]: name });

/** A request with every part a gateway reply may be about (a `json_schema` response format). */
const FULL_BODY = chatBody("Hello there", {
  response_format: {
    type: "json_schema",
    json_schema: { name: "extract", schema: { type: "object", properties: {} } },
  },
});

/** What the emulator sent, and what the row says the gateway sends. */
async function compare(response: Response, row: GatewayCode, model: string) {
  const requestId = response.headers.get("x-gateway-request-id") ?? "";
  expect(requestId).toMatch(REQUEST_ID);
  expect(response.headers.get("content-type")).toMatch(/^application\/json/);
  return {
    sent: { status: response.status, body: await response.text() },
    row: { status: row.status[0], body: sampleText(row.sample, { requestId, model }) },
  };
}

describe("the emulator's gateway faults", () => {
  it("are each named after a code of the table, or send no code of it", () => {
    const codes = new Set(GATEWAY_CODES.map((row) => row.code));
    const others = Object.keys(GATEWAY_FAULTS).filter((name) => !codes.has(name));
    expect(others.sort()).toEqual([...WITHOUT_A_CODE].sort());
    expect(INJECTABLE.length).toBeGreaterThan(12);
  });
});

describe.each(TRANSPORTS)("the emulator over the %s, against the table", (_name, make) => {
  const emulator = useEmulator(make);

  it.each(INJECTABLE.map((row) => [row.code, row.status[0], row] as const))(
    "X-Emulator-Fault: %s sends the row's status (%i) and sample body",
    async (code, _status, row) => {
      const response = await post(emulator, CHAT, FULL_BODY, fault(code));
      const { sent, row: expected } = await compare(response, row, DEFAULT_MODEL);
      expect(sent).toEqual(expected);
    },
  );

  it.each(["invalid_json_schema", "invalid_request_error"])(
    "X-Emulator-Fault: %s answers a request without a json_schema response format as usual",
    async (name) => {
      const refused = await post(emulator, CHAT, FULL_BODY, fault(name));
      expect(refused.status).toBe(400);
      for (const body of [
        chatBody(),
        chatBody("Hi", { response_format: { type: "json_object" } }),
      ]) {
        const response = await post(emulator, CHAT, body, fault(name));
        expect(response.status).toBe(200);
        expect(((await response.json()) as { object: string }).object).toBe("chat.completion");
      }
    },
  );

  it("sends model_not_found's row for a model it does not know", async () => {
    const row = GATEWAY_CODES.find((r) => r.code === "model_not_found")!;
    const response = await post(emulator, CHAT, { ...chatBody(), model: "no-such-model" });
    const { sent, row: expected } = await compare(response, row, "no-such-model");
    expect(sent).toEqual(expected);
  });
});
