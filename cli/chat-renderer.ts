/**
 * Live rendering of one chat turn: reply deltas as they arrive (on a terminal, Markdown rendered
 * block by block), reasoning dimmed, tool calls
 * and results, failures. Keeps track of the open line so each block starts on its own.
 * @module
 */
import type { CliEvent } from "./events.ts";
import type { Writable } from "./io.ts";
import { artifactLine, brief } from "./render-event.ts";
import type { Style } from "./style.ts";
import { type RenderMarkdown, createBlockSplitter } from "./terminal-markdown.ts";

export interface ChatRenderer {
  /** Writes what `event` shows, if anything. */
  render(event: CliEvent): void;
  /** Ends an open line (before a prompt). */
  endLine(): void;
}

export interface ChatRendererOptions {
  agentLabel: string;
  beforeWrite?: () => void;
  /** Renders replies as Markdown (a terminal), block by block; plain deltas as they come otherwise. */
  markdown?: RenderMarkdown;
}

export function createChatRenderer(out: Writable, style: Style, options: ChatRendererOptions): ChatRenderer {
  let open: "text" | "reasoning" | undefined;
  /** Markdown mode: the reply's incomplete block, and how many blocks were shown. */
  let blocks: ReturnType<typeof createBlockSplitter> | undefined;
  let shown = 0;
  const write = (text: string): void => {
    options.beforeWrite?.();
    out.write(text);
  };
  const showBlock = (block: string): void => {
    write(`${shown === 0 ? label : "\n"}${options.markdown!(block)}\n`);
    shown++;
  };
  const endLine = (): void => {
    if (open === "text" && blocks) {
      const rest = blocks.flush();
      if (rest) showBlock(rest);
      blocks = undefined;
      open = undefined;
      return;
    }
    if (open) write("\n");
    open = undefined;
  };
  const line = (text: string): void => {
    endLine();
    write(`${text}\n`);
  };
  const label = style.bold(`${options.agentLabel}› `);
  return {
    endLine,
    render(event) {
      const d = event.data;
      switch (event.type) {
        case "message.appended":
          if (options.markdown) {
            if (open !== "text") {
              endLine();
              blocks = createBlockSplitter();
              shown = 0;
              open = "text";
            }
            for (const block of blocks!.push(String(d.delta ?? ""))) showBlock(block);
            break;
          }
          if (open !== "text") {
            endLine();
            write(label);
            open = "text";
          }
          write(String(d.delta ?? ""));
          break;
        case "message.completed":
          if (open === "text") endLine();
          // A reply that arrived without deltas is printed whole.
          else if (typeof d.text === "string" && d.text) line(`${label}${options.markdown ? options.markdown(d.text) : d.text}`);
          break;
        case "reasoning.appended":
          if (open !== "reasoning") {
            endLine();
            write(style.dim("thinking: "));
            open = "reasoning";
          }
          write(style.dim(String(d.delta ?? "")));
          break;
        case "reasoning.completed":
          if (open === "reasoning") endLine();
          else if (typeof d.text === "string" && d.text) line(style.dim(`thinking: ${d.text}`));
          break;
        case "actions.requested":
          for (const action of Array.isArray(d.actions) ? (d.actions as Array<Record<string, unknown>>) : []) {
            line(style.cyan(`  ⚙ ${String(action.toolName)} ${brief(action.input, 160)}`));
          }
          break;
        case "action.result":
          line(d.isError === true
            ? style.red(`  ↳ ${String(d.toolName)} failed: ${brief(d.output)}`)
            : style.dim(`  ↳ ${String(d.toolName)}: ${brief(d.output)}`));
          break;
        case "action.approval_resolved":
          line(d.decision === "approve" ? style.green(`  ✔ approved ${String(d.callId)}`) : style.yellow(`  ✖ denied ${String(d.callId)}`));
          break;
        case "turn.queued":
          line(style.dim(`(queued at position ${String(d.position)})`));
          break;
        case "turn.failed":
          // A stop the user asked for is no failure.
          if (d.message === "turn interrupted") {
            line(style.dim("(stopped)"));
            break;
          }
          line(style.red(`turn failed: ${String(d.message ?? "")}`));
          break;
        case "session.failed":
          line(style.red(`session failed: ${String(d.message ?? "")}`));
          break;
        case "subagent.called":
          line(style.dim(`  ⤷ ${String(d.subagent)}: ${brief(d.prompt, 160)}`));
          break;
        case "subagent.completed":
          line(style.dim(`  ⤶ ${String(d.subagent)} ${d.isError === true ? "failed" : "done"}`));
          break;
        case "artifact.tagged":
          line(style.dim(`  ★ artifact ${artifactLine(d.artifact)}`));
          break;
        case "session.completed":
          line(style.dim("(session completed)"));
          break;
        default:
          break;
      }
    },
  };
}
