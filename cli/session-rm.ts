/**
 * `agent-serve session rm <sessionId>`: removes a session (its records, event log, conversation and
 * workspace) through `DELETE /v1/session/:id`, on the local state root or a running server.
 * @module
 */
import { EXIT_OK } from "./io.ts";
import type { CliIo } from "./io.ts";
import { createProgress } from "./progress.ts";
import { withTarget } from "./target.ts";
import type { TargetArgs } from "./target.ts";

export interface SessionRmArgs extends TargetArgs {
  sessionId: string;
  /** @default false */
  json?: boolean;
}

export async function sessionRmCommand(args: SessionRmArgs, io: CliIo): Promise<number> {
  const progress = createProgress(io, { quiet: args.json });
  return withTarget(args, io, progress, async ({ client }) => {
    await client.deleteJson(`/v1/session/${encodeURIComponent(args.sessionId)}`);
    io.stdout.write(args.json ? `${JSON.stringify({ ok: true, sessionId: args.sessionId })}\n` : `removed session ${args.sessionId}\n`);
    return EXIT_OK;
  });
}
