/**
 * `agent-serve session <sessionId>`: the session's summary and its last events.
 * @module
 */
import { readEvents } from "./events.ts";
import { EXIT_OK } from "./io.ts";
import type { CliIo } from "./io.ts";
import { createProgress } from "./progress.ts";
import { renderEvent } from "./render-event.ts";
import { statusText } from "./sessions.ts";
import { createStyle } from "./style.ts";
import { age, table } from "./table.ts";
import { sessionSummary } from "./session-summary.ts";
import { withTarget } from "./target.ts";
import type { TargetArgs } from "./target.ts";

export interface SessionArgs extends TargetArgs {
  sessionId: string;
  /** How many of the latest events to show. @default 10 */
  events?: number;
  /** @default false */
  json?: boolean;
}

export async function sessionCommand(args: SessionArgs, io: CliIo): Promise<number> {
  const progress = createProgress(io, { quiet: args.json });
  return withTarget(args, io, progress, async ({ client }) => {
    const events = await readEvents(client, args.sessionId);
    const summary = await sessionSummary(client, args.sessionId);
    const count = args.events ?? 10;
    if (args.json) {
      io.stdout.write(`${JSON.stringify({ session: summary, eventCount: events.length, events: events.slice(-count) })}\n`);
      return EXIT_OK;
    }
    const style = createStyle(io.stdout, io.env);
    const rows: string[][] = [["session", style.bold(args.sessionId)]];
    if (summary) {
      rows.push(
        ["status", statusText(summary.status, style) + (summary.queued ? " (queued)" : "")],
        ["title", summary.title ?? "—"],
        ["mode", `${summary.mode} via ${summary.channel}`],
        ["turns", String(summary.turnCount)],
        ["created", `${summary.createdAt} (${age(summary.createdAt)})`],
        ["updated", `${summary.updatedAt} (${age(summary.updatedAt)})`],
      );
    }
    rows.push(["events", String(events.length)]);
    const lines = table(rows).map((line) => `  ${line}`);
    lines[0] = lines[0]?.trimStart() ?? "";
    // Deltas render as nothing, so the last N are counted among the events that show.
    const rendered = events.flatMap((event) => renderEvent(event, style) ?? []).slice(-count);
    lines.push("", style.bold(`last ${rendered.length} event${rendered.length === 1 ? "" : "s"}:`), ...rendered);
    io.stdout.write(`${lines.join("\n")}\n`);
    return EXIT_OK;
  });
}
