import { AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { toInputItems } from "../../../src/apis/responses/input.js";

const rs = (id: string, sealed?: string) => ({
  id,
  type: "reasoning",
  summary: [{ type: "summary_text", text: `thought ${id}`, index: 0 }],
  ...(sealed ? { encrypted_content: sealed } : {}),
});
const fc = (call: string) => ({
  id: `fc_${call}`,
  type: "function_call",
  call_id: call,
  name: "f",
  arguments: "{}",
});

describe("toInputItems", () => {
  it("puts each reasoning item before the call it led to, as the reply had them", () => {
    const reply = new AIMessage({
      content: "",
      tool_calls: [
        { id: "a", name: "f", args: {} },
        { id: "b", name: "f", args: {} },
      ],
      response_metadata: { output: [rs("rs_1", "S1"), fc("a"), rs("rs_2", "S2"), fc("b")] },
    });
    const items = toInputItems(
      [
        new HumanMessage("q"),
        reply,
        new ToolMessage({ content: "1", tool_call_id: "a" }),
        new ToolMessage({ content: "2", tool_call_id: "b" }),
      ],
      "m",
      true,
    );
    expect(
      items.map((item) => [
        item.type,
        (item as { id?: string }).id ?? (item as { call_id?: string }).call_id,
      ]),
    ).toEqual([
      ["message", undefined],
      ["reasoning", "rs_1"],
      ["function_call", "a"],
      ["reasoning", "rs_2"],
      ["function_call", "b"],
      ["function_call_output", "a"],
      ["function_call_output", "b"],
    ]);
    // Sent back as the reply wrote it, less the stream's bookkeeping (`index`).
    expect(items[1]).toEqual({
      id: "rs_1",
      type: "reasoning",
      summary: [{ type: "summary_text", text: "thought rs_1" }],
      encrypted_content: "S1",
    });
  });

  it("sends the calls the message holds now, not the reply's, and no ID of a message or call when stateless", () => {
    const reply = new AIMessage({
      content: "Checking.",
      tool_calls: [{ id: "a", name: "f", args: { changed: true } }],
      response_metadata: {
        output: [
          rs("rs_1", "S1"),
          { id: "msg_1", type: "message", role: "assistant", content: [] },
          fc("a"),
        ],
      },
    });
    const items = toInputItems([reply], "m", true) as unknown as Array<Record<string, unknown>>;
    expect(items.map((item) => item.type)).toEqual(["reasoning", "message", "function_call"]);
    expect(items[2]).toEqual({
      type: "function_call",
      name: "f",
      arguments: '{"changed":true}',
      call_id: "a",
    });
    expect(items[1]).not.toHaveProperty("id");
  });

  it("keeps a reasoning item without encrypted_content when the call is not stateless", () => {
    const reply = new AIMessage({
      content: "ok",
      additional_kwargs: { reasoning: { id: "rs_9", summary: [] } },
    });
    expect(toInputItems([reply], "m", false)[0]).toMatchObject({ type: "reasoning", id: "rs_9" });
    expect(toInputItems([reply], "m", true).map((item) => item.type)).toEqual(["message"]);
  });

  it("sends a Chat Completions file part as an input_file, which @langchain/openai's converter drops", () => {
    const content = [
      {
        type: "file",
        file: { file_data: "data:application/pdf;base64,JVBERi0=", filename: "a.pdf" },
      },
      { type: "file", file: { file_id: "file-1" } },
      { type: "text", text: "Summarise them." },
    ];
    const message = new HumanMessage({ content });
    expect(toInputItems([message], "m", true)).toEqual([
      {
        type: "message",
        role: "user",
        content: [
          {
            type: "input_file",
            file_data: "data:application/pdf;base64,JVBERi0=",
            filename: "a.pdf",
          },
          { type: "input_file", file_id: "file-1" },
          { type: "input_text", text: "Summarise them." },
        ],
      },
    ]);
    // The caller's message is left as it was.
    expect(message.content).toEqual(content);
  });
});
