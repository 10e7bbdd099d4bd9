/**
 * One event as one line for people (`logs`, `session`). Streamed deltas are left out: the
 * `*.completed` event that follows carries the whole text.
 * @module
 */
import type { CliEvent } from "./events.ts";
import type { Style } from "./style.ts";

/** The line for `event`, or undefined for deltas. */
export function renderEvent(event: CliEvent, style: Style): string | undefined {
  if (event.type === "message.appended" || event.type === "reasoning.appended") return undefined;
  const head = `${style.dim(`#${event.index}`.padStart(5))} ${style.dim(clock(event.at))} ${label(event, style)}`;
  const detail = describe(event, style);
  return detail ? `${head}  ${indentRest(detail, 8)}` : head.trimEnd();
}

/** A value on one line, cut to `max` characters. */
export function brief(value: unknown, max = 200): string {
  const text = typeof value === "string" ? value : (JSON.stringify(value) ?? String(value));
  const flat = text.replace(/\s*\n\s*/g, " ⏎ ");
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** `HH:MM:SS` of an ISO timestamp in local time (the text itself when it does not parse). */
export function clock(at: string): string {
  const date = new Date(at);
  if (Number.isNaN(date.getTime())) return at;
  return [date.getHours(), date.getMinutes(), date.getSeconds()].map((n) => String(n).padStart(2, "0")).join(":");
}

/** An `artifact.tagged` record as `kind/key title (id, by source)`. */
export function artifactLine(artifact: unknown): string {
  if (typeof artifact !== "object" || artifact === null) return brief(artifact);
  const a = artifact as Record<string, unknown>; // SAFETY: a non-null object; members are printed, not trusted
  return `${String(a.kind)}/${String(a.key)} ${brief(String(a.title ?? ""), 120)} (${String(a.id)}, by ${String(a.source)})`;
}

// --- internals ---

/** The longest type in the vocabulary, `action.approval_requested`, sets the column. */
const TYPE_COLUMN = 25;

function label(event: CliEvent, style: Style): string {
  const text = event.type.padEnd(TYPE_COLUMN);
  if (event.type.endsWith(".failed")) return style.red(text);
  if (event.type === "action.approval_requested") return style.yellow(text);
  if (event.type.startsWith("action")) return style.cyan(text);
  return text;
}

function describe(event: CliEvent, style: Style): string {
  const d = event.data;
  switch (event.type) {
    case "session.started":
      return [`mode ${String(d.mode)}`, `channel ${String(d.channel)}`, d.title ? `title ${brief(d.title)}` : ""].filter(Boolean).join(", ");
    case "message.received":
      return `you: ${String(d.text ?? "")}`;
    case "turn.queued":
      return `position ${String(d.position)}`;
    case "step.started":
      return `step ${String(d.stepIndex)}`;
    case "step.completed":
      return `step ${String(d.stepIndex)}, ${String(d.finishReason)}, ${String(d.durationMs)} ms`;
    case "message.completed":
      return d.finishReason === "tool_call" && !d.text ? style.dim("(tool step)") : `assistant: ${String(d.text ?? "")}`;
    case "reasoning.completed":
      return style.dim(`reasoning: ${String(d.text ?? "")}`);
    case "actions.requested":
      return (Array.isArray(d.actions) ? d.actions : []).map((a: Record<string, unknown>) => `${String(a.toolName)} ${brief(a.input, 120)}`).join("; ");
    case "action.result":
      return `${String(d.toolName)} ${d.isError ? style.red("error") : "ok"}: ${brief(d.output)}`;
    case "action.approval_requested":
      return `${String(d.toolName)} ${brief(d.input, 120)} (call ${String(d.callId)})`;
    case "action.approval_resolved":
      return `call ${String(d.callId)}: ${String(d.decision)}`;
    case "turn.completed":
      return usageLine(d.usage);
    case "turn.failed":
    case "session.failed":
      return style.red(String(d.message ?? ""));
    case "subagent.called":
      return `${String(d.subagent)}: ${brief(d.prompt)}`;
    case "subagent.completed":
      return `${String(d.subagent)} ${d.isError ? style.red("error") : "ok"}${d.result === undefined ? "" : `: ${brief(d.result)}`}`;
    case "artifact.tagged":
      return artifactLine(d.artifact);
    case "agent.bound":
      return `runner ${String(d.runner ?? "")}, agent ${String(d.agentId ?? "")}`;
    case "turn.started":
    case "session.waiting":
    case "session.completed":
      return "";
    default:
      return Object.keys(d).length > 0 ? brief(d) : "";
  }
}

function usageLine(usage: unknown): string {
  if (typeof usage !== "object" || usage === null) return "";
  const u = usage as Record<string, unknown>; // SAFETY: a non-null object; members are printed, not trusted
  return `tokens in ${String(u.inputTokens ?? 0)}, out ${String(u.outputTokens ?? 0)}`;
}

function indentRest(text: string, width: number): string {
  return text.replace(/\n/g, `\n${" ".repeat(width)}`);
}
