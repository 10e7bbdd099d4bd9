/**
 * `agent-serve session fork <sessionId> --at <index> [--message <text>]`: a new session from the
 * source's events and conversation up to the index, through `POST /v1/session/:id/fork`
 * (docs/guide/forking.md), on the local state root or a running server.
 * @module
 */
import type { CreateSessionResponse } from "../src/entries/events.ts";
import { EXIT_OK } from "./io.ts";
import type { CliIo } from "./io.ts";
import { createProgress } from "./progress.ts";
import { withTarget } from "./target.ts";
import type { TargetArgs } from "./target.ts";

export interface SessionForkArgs extends TargetArgs {
  sessionId: string;
  atIndex: number;
  message?: string | undefined;
  /** @default false */
  json?: boolean;
}

export async function sessionForkCommand(args: SessionForkArgs, io: CliIo): Promise<number> {
  const progress = createProgress(io, { quiet: args.json });
  return withTarget(args, io, progress, async ({ client }) => {
    const answer = await client.postJson<CreateSessionResponse>(`/v1/session/${encodeURIComponent(args.sessionId)}/fork`, {
      atIndex: args.atIndex,
      ...(args.message === undefined ? {} : { message: args.message }),
    });
    if (args.json) io.stdout.write(`${JSON.stringify(answer)}\n`);
    else io.stdout.write(`forked ${args.sessionId} at event ${args.atIndex}: session ${answer.sessionId}\ncontinuation token ${answer.continuationToken}\n${answer.traceUrl}\n`);
    return EXIT_OK;
  });
}
