/**
 * `agent-serve logs <sessionId> [--follow] [--from N]`: a session's events rendered for people,
 * or the raw NDJSON lines with `--json`. `--follow` keeps reading the live stream until Ctrl-C
 * (or until the server ends it, as for a finished task session).
 * @module
 */
import { explainSessionError, sessionPath } from "./api-client.ts";
import { followLines, parseEvent } from "./events.ts";
import { EXIT_OK } from "./io.ts";
import type { CliIo } from "./io.ts";
import { createProgress } from "./progress.ts";
import { renderEvent } from "./render-event.ts";
import { stopSignal } from "./stop-signal.ts";
import { createStyle } from "./style.ts";
import { withTarget } from "./target.ts";
import type { TargetArgs } from "./target.ts";

export interface LogsArgs extends TargetArgs {
  sessionId: string;
  /** Keep following the live stream. @default false */
  follow?: boolean;
  /** First event index to show. @default 0 */
  from?: number;
  /** Raw NDJSON lines instead of rendered ones. @default false */
  json?: boolean;
}

export async function logsCommand(args: LogsArgs, io: CliIo): Promise<number> {
  const progress = createProgress(io, { quiet: args.json });
  const style = createStyle(io.stdout, io.env);
  const from = args.from ?? 0;
  const print = (line: string): void => {
    if (args.json) {
      io.stdout.write(`${line}\n`);
      return;
    }
    const text = renderEvent(parseEvent(line), style);
    if (text !== undefined) io.stdout.write(`${text}\n`);
  };
  return withTarget(args, io, progress, async ({ client }) => {
    try {
      if (!args.follow) {
        for await (const line of client.lines(sessionPath(args.sessionId, "/events"))) {
          if (parseEvent(line).index >= from) print(line);
        }
        return EXIT_OK;
      }
      const stop = stopSignal(io.signal);
      try {
        for await (const line of followLines(client, args.sessionId, from, stop.signal)) print(line);
      } finally {
        stop.dispose();
      }
      return EXIT_OK;
    } catch (error) {
      throw explainSessionError(error, args.sessionId);
    }
  });
}
