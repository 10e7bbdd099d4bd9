/**
 * Replies rendered as Markdown on a terminal (`chat`): marked with marked-terminal, painted with
 * `node:util` styleText so the decision to colour stays ours (the injected stream and NO_COLOR),
 * not the library's look at `process.stdout`. Replies stream block by block: a paragraph, list or
 * code block is shown once it is complete, so the Markdown is whole when it is rendered.
 * @module
 */
import { styleText } from "node:util";
import { Marked, type MarkedExtension } from "marked";
import { markedTerminal } from "marked-terminal";

type Format = Parameters<typeof styleText>[0];

export type RenderMarkdown = (text: string) => string;

export function createTerminalMarkdown(options: { width?: number } = {}): RenderMarkdown {
  const paint = (format: Format) => (text: string): string => styleText(format, text, { validateStream: false });
  // SAFETY: marked-terminal 7 returns a marked extension; its published types still describe v6's renderer.
  const extension = markedTerminal({
      width: options.width ?? 80,
      reflowText: false,
      showSectionPrefix: false,
      tab: 2,
      emoji: false,
      heading: paint(["bold", "green"]),
      firstHeading: paint(["bold", "green"]),
      strong: paint("bold"),
      em: paint("italic"),
      codespan: paint("yellow"),
      code: paint("yellow"),
      del: paint(["dim", "strikethrough"]),
      link: paint("cyan"),
      href: paint(["cyan", "underline"]),
      blockquote: paint(["gray", "italic"]),
      hr: paint("dim"),
    }) as unknown as MarkedExtension;
  const marked = new Marked(extension);
  return (text) => (marked.parse(text, { async: false }) as string).replace(/\n+$/, "");
}

/**
 * Splits streamed text into complete Markdown blocks: a block ends at a blank line outside a
 * fenced code block. `push` returns the blocks completed by a delta; `flush` the rest.
 */
export function createBlockSplitter(): { push(delta: string): string[]; flush(): string | undefined } {
  let pending = "";
  return {
    push(delta) {
      pending += delta;
      const blocks: string[] = [];
      for (;;) {
        const end = blockEnd(pending);
        if (end === -1) break;
        const block = pending.slice(0, end).trim();
        pending = pending.slice(end).replace(/^\n+/, "");
        if (block) blocks.push(block);
      }
      return blocks;
    },
    flush() {
      const rest = pending.trim();
      pending = "";
      return rest || undefined;
    },
  };
}

// --- internals ---

/** Where the first complete block ends (at a blank line outside a fence), or -1. */
function blockEnd(text: string): number {
  let inFence = false;
  let offset = 0;
  for (const line of text.split("\n")) {
    const next = offset + line.length + 1;
    if (/^\s*(```|~~~)/.test(line)) inFence = !inFence;
    else if (!inFence && line.trim() === "" && offset > 0 && next <= text.length) return offset;
    offset = next;
  }
  return -1;
}
