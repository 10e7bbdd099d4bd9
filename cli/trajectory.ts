/**
 * `agent-serve trajectory <sessionId>`: the tool calls of a session paired with their results,
 * with durations and totals, from the recorded events.
 * @module
 */
import { readEvents } from "./events.ts";
import { foldTrajectory } from "./fold-trajectory.ts";
import type { Trajectory } from "./fold-trajectory.ts";
import { EXIT_OK } from "./io.ts";
import type { CliIo } from "./io.ts";
import { createProgress } from "./progress.ts";
import { brief } from "./render-event.ts";
import { createStyle } from "./style.ts";
import type { Style } from "./style.ts";
import { table } from "./table.ts";
import { withTarget } from "./target.ts";
import type { TargetArgs } from "./target.ts";

export interface TrajectoryArgs extends TargetArgs {
  sessionId: string;
  /** @default false */
  json?: boolean;
}

export async function trajectoryCommand(args: TrajectoryArgs, io: CliIo): Promise<number> {
  const progress = createProgress(io, { quiet: args.json });
  return withTarget(args, io, progress, async ({ client }) => {
    const events = await readEvents(client, args.sessionId);
    const trajectory = foldTrajectory(args.sessionId, events);
    io.stdout.write(args.json ? `${JSON.stringify(trajectory)}\n` : render(trajectory, createStyle(io.stdout, io.env)));
    return EXIT_OK;
  });
}

// --- internals ---

const APPROVAL: Record<string, string> = { approve: "approved", deny: "denied" };

function render(t: Trajectory, style: Style): string {
  const lines = [`session ${t.sessionId}`];
  if (t.calls.length === 0) {
    lines.push("no tool calls");
  } else {
    const rows = t.calls.map((call, i) => [
      String(i + 1),
      call.toolName,
      call.status === "ok" ? style.green("ok") : call.status === "error" ? style.red("error") : style.yellow("pending"),
      call.durationMs === null ? "—" : `${call.durationMs} ms`,
      call.approval ? (APPROVAL[call.approval.decision ?? ""] ?? "awaiting approval") : "",
      `${brief(call.input, 60)} → ${call.status === "pending" ? "…" : brief(call.output, 80)}`,
    ]);
    lines.push(...table([["#", "TOOL", "STATUS", "DURATION", "APPROVAL", "INPUT → OUTPUT"].map(style.bold), ...rows]));
  }
  const { totals } = t;
  lines.push(
    "",
    style.bold("totals"),
    `  ${totals.calls} tool call${totals.calls === 1 ? "" : "s"}: ${totals.ok} ok, ${totals.errors} error${totals.errors === 1 ? "" : "s"}, ${totals.pending} pending; tool time ${totals.toolTimeMs} ms`,
    `  ${totals.turns} turn${totals.turns === 1 ? "" : "s"}; turn time ${totals.turnTimeMs} ms`,
  );
  for (const [name, tool] of Object.entries(totals.byTool)) {
    lines.push(`  ${name}: ${tool.calls} call${tool.calls === 1 ? "" : "s"}, ${tool.errors} error${tool.errors === 1 ? "" : "s"}, ${tool.toolTimeMs} ms`);
  }
  return `${lines.join("\n")}\n`;
}
