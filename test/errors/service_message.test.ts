import { describe, expect, it } from "vitest";
import { bareMessage, quoted } from "../../src/errors/service_message.js";

describe("bareMessage", () => {
  it("drops every request ID suffix and every final full stop, Latin or CJK", () => {
    expect(bareMessage("Model busy. (request id: a1) (request id: b2)")).toBe("Model busy");
    expect(bareMessage("Done..")).toBe("Done");
    expect(bareMessage("完成。。")).toBe("完成");
    expect(bareMessage("  spaced out .  ")).toBe("spaced out");
    expect(bareMessage("v1.2 is gone")).toBe("v1.2 is gone");
  });

  it("gives nothing for a message that is only an ID, stops or space", () => {
    expect(bareMessage("(request id: a1)")).toBeUndefined();
    expect(bareMessage(" . ")).toBeUndefined();
    expect(bareMessage("")).toBeUndefined();
    expect(bareMessage(undefined)).toBeUndefined();
  });
});

describe("quoted", () => {
  it("is `: <message>` for a message, and nothing without one", () => {
    expect(quoted("Slow down. (request id: r)")).toBe(": Slow down");
    expect(quoted("(request id: r)")).toBe("");
    expect(quoted(undefined)).toBe("");
  });
});
