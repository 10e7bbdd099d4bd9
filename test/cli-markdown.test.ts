/**
 * Replies rendered as Markdown on a terminal: streamed deltas are shown block by
 * block once complete, styled with escapes; pipes keep the reply exactly as written.
 */
import { describe, expect, it } from "vitest";
import { createChatRenderer } from "../cli/chat-renderer.ts";
import type { CliEvent } from "../cli/events.ts";
import { createStyle } from "../cli/style.ts";
import { createBlockSplitter, createTerminalMarkdown } from "../cli/terminal-markdown.ts";

const reply = "# Plan\n\nSome **bold** and `code`.\n\n```js\nconst a = 1;\n\nconst b = 2;\n```\n\n- one\n- two";

function stream(markdown: boolean): { out: string; writesBeforeEnd: string[] } {
  let out = "";
  const writesBeforeEnd: string[] = [];
  const style = createStyle({ write() {}, isTTY: markdown }, {});
  const renderer = createChatRenderer({ write: (s: string) => (out += s) }, style, { agentLabel: "bot", ...(markdown ? { markdown: createTerminalMarkdown() } : {}) });
  let index = 0;
  const event = (type: string, data: Record<string, unknown>): CliEvent => ({ type, index: index++, sessionId: "ses_1", at: "", data });
  // Deltas cut anywhere, as a model streams them.
  for (let i = 0; i < reply.length; i += 7) {
    renderer.render(event("message.appended", { delta: reply.slice(i, i + 7) }));
    writesBeforeEnd.push(out);
  }
  renderer.render(event("message.completed", { text: reply, finishReason: "stop" }));
  return { out, writesBeforeEnd };
}

describe("terminal Markdown", () => {
  it("renders complete blocks as they stream: headings, bold, code spans and fenced code kept whole", () => {
    const { out, writesBeforeEnd } = stream(true);
    expect(out.startsWith("\u001B[1m\u001B[32m")).toBe(false);
    expect(out.startsWith("\u001B[1mbot› \u001B[22m")).toBe(true);
    expect(out).not.toContain("**");
    expect(out).not.toContain("# Plan");
    expect(out).toContain("\u001B[1mbold\u001B[22m");
    expect(out).toContain("\u001B[33mcode\u001B[39m");
    // The fence's blank line did not split the code block: both lines are in one styled block.
    expect(out).toMatch(/const a = 1;\n\n?\s*const b = 2;/);
    expect(out).not.toContain("```");
    expect(out).toMatch(/one[\s\S]*two\n$/);
    // Blocks appeared before the reply completed (streaming), never a half block.
    const early = writesBeforeEnd.find((text) => text.includes("bold"));
    expect(early).toBeDefined();
    expect(early).not.toContain("const a");
  });

  it("writes the reply as written when not on a terminal", () => {
    const { out } = stream(false);
    expect(out).toBe(`bot› ${reply}\n`);
  });

  it("splits blocks at blank lines outside fences only", () => {
    const splitter = createBlockSplitter();
    expect(splitter.push("a\n\nb\n")).toEqual(["a"]);
    expect(splitter.push("```\nx\n\ny\n```\n\nc")).toEqual(["b\n```\nx\n\ny\n```"]);
    expect(splitter.flush()).toBe("c");
  });
});
