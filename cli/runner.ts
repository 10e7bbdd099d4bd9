/**
 * `agent-serve runner [dir]`: runs the cloud turns of the agents in `dir` for hosts that sign
 * their requests with the shared secret (docs/guide/cloud-runtime.md).
 * @module
 */
import { join, resolve } from "node:path";
import { parseWorkspaceIdle, startRunner } from "../adapters/_runner.ts";
import { nodeRuntime } from "../adapters/node.ts";
import { EXIT_FAILURE, EXIT_OK, UsageError, errorMessage } from "./io.ts";
import type { CliIo } from "./io.ts";
import { waitForStop } from "./stop-signal.ts";

export interface RunnerArgs {
  dir?: string;
  mode?: "multi" | "single";
  port?: number;
  host?: string;
  /** Else `AGENT_SERVE_RUNNER_SECRET`. */
  secret?: string;
  /** @default <dir>/.agent-serve/runner */
  workdir?: string;
  publicUrl?: string;
  apiKey?: string;
  /** `--workspace-idle`: a duration (`7d`, `12h`), or `0` to keep workspaces until their session is deleted. */
  workspaceIdle?: string;
}

/** Shorter secrets are refused: the HMAC is only as strong as the secret. */
const MIN_SECRET_LENGTH = 16;

export async function runnerCommand(args: RunnerArgs, io: CliIo): Promise<number> {
  const secret = args.secret ?? io.env.AGENT_SERVE_RUNNER_SECRET;
  if (!secret) throw new UsageError("runner needs the secret it shares with its hosts: --secret <secret> or AGENT_SERVE_RUNNER_SECRET");
  if (secret.length < MIN_SECRET_LENGTH) throw new UsageError(`the runner secret must be at least ${MIN_SECRET_LENGTH} characters`);
  // Security: the turns' processes inherit this process's environment; the secret must not reach them.
  const env = { ...io.env };
  delete env.AGENT_SERVE_RUNNER_SECRET;
  if (io.env === process.env) delete process.env.AGENT_SERVE_RUNNER_SECRET;
  const dir = resolve(io.cwd, args.dir ?? ".");
  const workspaceIdleMs = args.workspaceIdle === undefined ? undefined : parseWorkspaceIdle(args.workspaceIdle);
  if (workspaceIdleMs === undefined && args.workspaceIdle !== undefined) throw new UsageError(`--workspace-idle must be a duration such as 7d or 12h, or 0 (got "${args.workspaceIdle}")`);
  let runner;
  try {
    runner = await startRunner(
      {
        dir,
        ...(args.mode ? { mode: args.mode } : {}),
        secret,
        workdir: args.workdir ? resolve(io.cwd, args.workdir) : join(dir, ".agent-serve", "runner"),
        ...(args.port === undefined ? {} : { port: args.port }),
        ...(args.host ? { hostname: args.host } : {}),
        ...(args.publicUrl ? { publicUrl: args.publicUrl.replace(/\/+$/, "") } : {}),
        ...(args.apiKey ? { apiKey: args.apiKey } : {}),
        ...(workspaceIdleMs === undefined ? {} : { workspaceIdleMs }),
        env,
        log: (line) => io.stdout.write(`agent-serve runner: ${line}\n`),
      },
      io.runtime ?? nodeRuntime,
    );
  } catch (error) {
    io.stderr.write(`agent-serve runner: ${errorMessage(error)}\n`);
    return EXIT_FAILURE;
  }
  const slugs = runner.loaded.projects.map(({ slug }) => slug).join(", ");
  io.stdout.write(`agent-serve runner listening on ${runner.url} (agents: ${slugs})\n`);
  await waitForStop(io.signal);
  io.stdout.write("agent-serve runner: shutting down\n");
  await runner.close();
  return EXIT_OK;
}
