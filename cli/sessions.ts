/**
 * `agent-serve sessions [dir]`: the sessions the caller can see, newest first; `--json` prints
 * `{sessions}` as the server answers it, continuation tokens included.
 * @module
 */
import type { SessionSummary } from "../src/entries/events.ts";
import { EXIT_OK } from "./io.ts";
import type { CliIo } from "./io.ts";
import { createProgress } from "./progress.ts";
import { createStyle } from "./style.ts";
import type { Style } from "./style.ts";
import { age, table } from "./table.ts";
import { withTarget } from "./target.ts";
import type { TargetArgs } from "./target.ts";

export interface SessionsArgs extends TargetArgs {
  /** @default false */
  json?: boolean;
}

export async function sessionsCommand(args: SessionsArgs, io: CliIo): Promise<number> {
  const progress = createProgress(io, { quiet: args.json });
  return withTarget(args, io, progress, async ({ client, agent }) => {
    const { sessions } = await client.getJson<{ sessions: SessionSummary[] }>("/v1/sessions");
    if (args.json) {
      io.stdout.write(`${JSON.stringify({ sessions })}\n`);
      return EXIT_OK;
    }
    if (sessions.length === 0) {
      io.stdout.write(`no sessions for ${agent.slug}\n`);
      return EXIT_OK;
    }
    const style = createStyle(io.stdout, io.env);
    const rows = sessions.map((s) => [s.sessionId, statusText(s.status, style), String(s.turnCount), age(s.updatedAt), s.channel, s.title ?? ""]);
    const lines = table([["SESSION", "STATUS", "TURNS", "UPDATED", "CHANNEL", "TITLE"].map(style.bold), ...rows]);
    io.stdout.write(`${lines.join("\n")}\n`);
    return EXIT_OK;
  });
}

export function statusText(status: string, style: Style): string {
  if (status === "running" || status === "queued") return style.cyan(status);
  if (status === "failed") return style.red(status);
  return status;
}
