/**
 * `memoryHook()`: the Agent SDK's turn journal (docs/design/agent-sdk-compatibility.md). After
 * each turn completes or fails it appends one record, `{at, sessionId, channelId, status, title,
 * userMessage, result, usage}`, to `memory/journal.jsonl` in the project, or to the backend given.
 * The model reads `memory/` with its file tools; there is no recall tool.
 * @module
 */
import { createError } from "../../base/errors.ts";
import type { HookContext, HookDefinition } from "../../base/definitions/hooks.ts";
import type { Usage } from "../../base/ports/model.ts";
import type { ProjectFiles } from "../../base/definitions/tools.ts";

/** One finished turn, as journaled. */
export interface MemoryRecord {
  /** ISO-8601 time the turn finished. */
  at: string;
  sessionId: string;
  /** The channel that started the session (`http`, `slack`, `schedule`, ...). */
  channelId: string;
  status: "completed" | "failed";
  title: string | null;
  /** The user text the turn answered (follow-ups coalesced into one turn are joined). */
  userMessage: string;
  /** The reply, or the failure message of a failed turn. */
  result: string;
  usage: Usage;
}

/** Where records go instead of the project's journal file. */
export interface MemoryBackend {
  append(record: MemoryRecord, context: HookContext): unknown;
}

export interface MemoryHookOptions {
  /** Replaces the file journal. */
  backend?: MemoryBackend;
  /** Project-relative journal file. @default "memory/journal.jsonl" */
  path?: string;
  /** Skip eval traffic (sessions with purpose `eval`). @default true */
  skipEvals?: boolean;
}

const ZERO: Usage = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };

/**
 * The hook to default-export from `bot/hooks/memory.ts`.
 * @example
 * import { memoryHook } from "agent-serve/memory";
 * export default memoryHook();
 */
export function memoryHook(options: MemoryHookOptions = {}): HookDefinition {
  const path = options.path ?? "memory/journal.jsonl";
  const skipEvals = options.skipEvals ?? true;
  // Per session: what the running turn was asked and has answered so far. Hooks see each
  // session's events in order, so this never mixes turns.
  const turns = new Map<string, { userMessage: string[]; result: string }>();
  const turnOf = (sessionId: string): { userMessage: string[]; result: string } => {
    let turn = turns.get(sessionId);
    if (!turn) turns.set(sessionId, (turn = { userMessage: [], result: "" }));
    return turn;
  };
  const finish = async (status: MemoryRecord["status"], event: { sessionId: string; at: string; data: Record<string, unknown> }, ctx: HookContext) => {
    const turn = turnOf(event.sessionId);
    turns.delete(event.sessionId);
    if (skipEvals && ctx.session.purpose === "eval") return;
    const record: MemoryRecord = {
      at: event.at,
      sessionId: event.sessionId,
      channelId: ctx.channel.id,
      status,
      title: ctx.session.title ?? null,
      userMessage: turn.userMessage.join("\n\n"),
      result: status === "failed" ? String(event.data.message ?? "") : turn.result,
      usage: { ...ZERO, ...(isUsage(event.data.usage) ? event.data.usage : {}) },
    };
    if (options.backend) {
      await options.backend.append(record, ctx);
      return;
    }
    const files = ctx.host.projectFiles as ProjectFiles | undefined;
    if (!files) throw createError("memory", "no project files on this host: pass memoryHook({ backend }) to journal elsewhere");
    await files.append(path, `${JSON.stringify(record)}\n`);
  };
  return {
    events: {
      "message.received"(event) {
        const text = event.data.text;
        if (typeof text === "string") turnOf(event.sessionId).userMessage.push(text);
      },
      "message.completed"(event) {
        // The reply is the last message of the turn that is not a step's tool-call preamble.
        if (event.data.finishReason !== "tool_call" && typeof event.data.text === "string") turnOf(event.sessionId).result = event.data.text;
      },
      "turn.completed": (event, ctx) => finish("completed", event, ctx),
      "turn.failed": (event, ctx) => finish("failed", event, ctx),
    },
  };
}

function isUsage(value: unknown): value is Partial<Usage> {
  return typeof value === "object" && value !== null;
}
