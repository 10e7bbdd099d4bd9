/**
 * `agent-serve sessions [dir]`: the sessions the caller can see, newest first, one page of
 * `GET /v1/sessions` (`--limit`, `--cursor`), or every page with `--all`; `--json` prints
 * `{sessions, nextCursor}` as the server answers it, continuation tokens included
 * (docs/guide/cli.md "Listing sessions").
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
  /** Sessions per page. @default the server's (50) */
  limit?: number;
  /** Start after the page that printed this cursor. */
  cursor?: string;
  /** Follow every cursor. @default false */
  all?: boolean;
}

interface SessionsPage {
  sessions: SessionSummary[];
  /** Absent from a server that does not page. */
  nextCursor?: string | null;
}

export async function sessionsCommand(args: SessionsArgs, io: CliIo): Promise<number> {
  const progress = createProgress(io, { quiet: args.json });
  return withTarget(args, io, progress, async ({ client, agent }) => {
    const sessions: SessionSummary[] = [];
    let cursor = args.cursor ?? null;
    do {
      const query = new URLSearchParams();
      if (args.limit !== undefined) query.set("limit", String(args.limit));
      if (cursor !== null) query.set("cursor", cursor);
      const page = await client.getJson<SessionsPage>(`/v1/sessions${query.size > 0 ? `?${query}` : ""}`);
      sessions.push(...page.sessions);
      cursor = page.nextCursor ?? null;
    } while (args.all && cursor !== null);
    if (args.json) {
      io.stdout.write(`${JSON.stringify({ sessions, nextCursor: cursor })}\n`);
      return EXIT_OK;
    }
    if (sessions.length === 0) {
      io.stdout.write(args.cursor === undefined ? `no sessions for ${agent.slug}\n` : "no more sessions\n");
      return EXIT_OK;
    }
    const style = createStyle(io.stdout, io.env);
    const rows = sessions.map((s) => [s.sessionId, statusText(s.status, style), String(s.turnCount), age(s.updatedAt), s.channel, s.title ?? ""]);
    const lines = table([["SESSION", "STATUS", "TURNS", "UPDATED", "CHANNEL", "TITLE"].map(style.bold), ...rows]);
    io.stdout.write(`${lines.join("\n")}\n`);
    if (cursor !== null) io.stdout.write(style.dim(`more: agent-serve sessions --cursor ${cursor} (or --all)\n`));
    return EXIT_OK;
  });
}

export function statusText(status: string, style: Style): string {
  if (status === "running" || status === "queued") return style.cyan(status);
  if (status === "failed") return style.red(status);
  return status;
}
