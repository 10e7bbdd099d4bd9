/**
 * What happens in an agent's sessions, as log lines: turns (queued, started, completed with
 * duration and tokens, failed or stopped), tool calls (with their duration), approvals and
 * subagents. A failed turn is a warning: the host works as it should; errors are the host's own
 * failures. It reads the same events every other follower reads, so it cannot disagree with
 * the stream (see `docs/design/logging.md`).
 * @module
 */
import type { HostLogger } from "../../base/logging.ts";
import type { SessionEvent } from "../../base/events/vocabulary.ts";

/** Start times are kept per open turn and tool call; a crash can leave some open, so the map is capped. */
const MAX_OPEN = 10_000;
/** The events that make a line or open a timer; the switch below handles exactly these. */
const LOGGED: ReadonlySet<string> = new Set([
  "turn.queued",
  "turn.started",
  "turn.completed",
  "turn.failed",
  "actions.requested",
  "action.result",
  "action.approval_requested",
  "action.approval_resolved",
  "subagent.called",
  "subagent.completed",
  "session.failed",
]);
/** Turn-end messages that are not failures: a person stopped the turn, or the host is closing. */
const STOPPED = new Set(["turn interrupted", "host shutting down"]);

export function createActivityLog(slug: string, logger: HostLogger): (event: SessionEvent) => void {
  const started = new Map<string, number>();
  const open = (key: string, at: string): void => {
    if (started.size >= MAX_OPEN) started.delete(started.keys().next().value!);
    started.set(key, Date.parse(at));
  };
  const close = (key: string, at: string): number | undefined => {
    const from = started.get(key);
    started.delete(key);
    return from === undefined ? undefined : Date.parse(at) - from;
  };

  return (event) => {
    // Most events (every streamed delta) log nothing: they allocate nothing here either.
    if (!LOGGED.has(event.type)) return;
    const { sessionId, turnId } = event;
    const where = { agent: slug, sessionId, ...(turnId ? { turnId } : {}) };
    const say = (text: string): string => `${slug} ${sessionId} ${text}`;
    switch (event.type) {
      case "turn.queued":
        logger.info(say(`turn queued at position ${String(event.data.position)}`), { ...where, event: event.type, position: event.data.position });
        return;
      case "turn.started":
        if (turnId) open(turnId, event.at);
        logger.info(say("turn started"), { ...where, event: event.type });
        return;
      case "turn.completed": {
        const ms = turnId ? close(turnId, event.at) : undefined;
        const usage = (event.data.usage ?? {}) as Record<string, unknown>;
        const tokens = `${Number(usage["inputTokens"] ?? 0)} in / ${Number(usage["outputTokens"] ?? 0)} out tokens`;
        logger.info(say(`turn completed${ms === undefined ? "" : ` in ${seconds(ms)}`}, ${tokens}`), {
          ...where,
          event: event.type,
          ...(ms === undefined ? {} : { ms }),
          usage,
          ...(typeof event.data.model === "string" ? { model: event.data.model } : {}),
        });
        return;
      }
      case "turn.failed": {
        const ms = turnId ? close(turnId, event.at) : undefined;
        const message = String(event.data.message ?? "");
        const fields = { ...where, event: event.type, message, ...(ms === undefined ? {} : { ms }) };
        if (STOPPED.has(message)) logger.info(say(`turn stopped (${message})`), fields);
        else logger.warn(say(`turn failed: ${message}`), fields);
        return;
      }
      case "actions.requested":
        for (const action of actionsOf(event.data)) if (typeof action["toolCallId"] === "string") open(action["toolCallId"], event.at);
        return;
      case "action.result": {
        const callId = typeof event.data.toolCallId === "string" ? event.data.toolCallId : undefined;
        const ms = callId ? close(callId, event.at) : undefined;
        const failed = event.data.isError === true;
        const name = String(event.data.toolName ?? "tool");
        const text = say(`tool ${name} ${failed ? "failed" : "ok"}${ms === undefined ? "" : ` in ${ms}ms`}${failed ? `: ${summary(event.data.output)}` : ""}`);
        const fields = { ...where, event: event.type, toolName: name, ...(callId ? { toolCallId: callId } : {}), isError: failed, ...(ms === undefined ? {} : { ms }) };
        if (failed) logger.warn(text, fields);
        else logger.info(text, fields);
        return;
      }
      case "action.approval_requested":
        logger.info(say(`tool ${String(event.data.toolName ?? "")} waits for approval`), { ...where, event: event.type });
        return;
      case "action.approval_resolved":
        logger.info(say(`approval ${String(event.data.decision ?? "")}`), { ...where, event: event.type, decision: event.data.decision });
        return;
      case "subagent.called":
        logger.info(say(`subagent ${String(event.data.subagent ?? "")} called`), { ...where, event: event.type });
        return;
      case "subagent.completed":
        logger.info(say(`subagent ${String(event.data.subagent ?? "")} ${event.data.isError === true ? "failed" : "completed"}`), { ...where, event: event.type });
        return;
      case "session.failed":
        logger.warn(say(`task failed: ${String(event.data.message ?? "")}`), { ...where, event: event.type });
        return;
      default:
        return;
    }
  };
}

// --- internals ---

function actionsOf(data: { actions?: unknown }): Array<Record<string, unknown>> {
  const actions = data.actions;
  return Array.isArray(actions) ? actions.filter((a): a is Record<string, unknown> => typeof a === "object" && a !== null) : [];
}

function seconds(ms: number): string {
  return ms < 1000 ? `${ms}ms` : `${(ms / 1000).toFixed(1)}s`;
}

/** The first line of a tool's error output, short enough for one log line. */
function summary(output: unknown): string {
  const text = typeof output === "string" ? output : (envelopeText(output) ?? JSON.stringify(output) ?? "");
  const line = text.split("\n", 1)[0] ?? "";
  return line.length > 200 ? `${line.slice(0, 199)}…` : line;
}

/** The text parts of a `{content: [...]}` tool envelope, when that is what the output is. */
function envelopeText(output: unknown): string | undefined {
  const content = typeof output === "object" && output !== null ? (output as { content?: unknown }).content : undefined;
  if (!Array.isArray(content)) return undefined;
  const texts = content.flatMap((part: unknown) => {
    const text = typeof part === "object" && part !== null ? (part as { text?: unknown }).text : undefined;
    return typeof text === "string" ? [text] : [];
  });
  return texts.length > 0 ? texts.join(" ") : undefined;
}
