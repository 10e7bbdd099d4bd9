/**
 * Option groups shared by several commands and the conversions from cac's parsed flags to each
 * command's arguments. String values are read raw from argv (see `raw-option.ts`).
 * @module
 */
import { UsageError } from "./io.ts";
import { rawOption } from "./raw-option.ts";
import type { StartHostOptions } from "./start-host.ts";
import type { TargetArgs } from "./target.ts";

export type Flags = Record<string, unknown>;

interface CommandLike {
  option(rawName: string, description: string): CommandLike;
}

/** Options of every command that loads projects locally (`serve`, `run`, the ephemeral target). */
export function withHostOptions<T extends CommandLike>(command: T): T {
  command
    .option("--dir <dir>", "The project directory, as the [dir] argument (default: .)")
    .option("--mode <mode>", "Route layout: multi or single (default: multi)")
    .option("--api-key <key>", "Model credential (else the provider's environment variable, else the stored login)")
    .option("--state-root <dir>", "Directory for sessions and streams (default: <project>/.agent-serve[/<slug>])")
    .option("--storage <url>", "The store: sqlite:<path>, memory:, redis://… or postgres://… (env AGENT_SERVE_STORAGE; default: sqlite:<state-root>/state.db)");
  return command;
}

/** Options of request-sending commands; `dirFlag` adds `--dir` where no `[dir]` argument exists. */
export function withTargetOptions<T extends CommandLike>(command: T, dirFlag: boolean): T {
  command
    .option("--url <baseUrl>", "A running server's agent URL (in multi mode with the slug: http://host:port/<slug>)")
    .option("--bearer-token <secret>", "Sent as Authorization: Bearer <secret> to the --url or --prod server")
    .option("--prod", "Reach the deployed worker of --dir (the URL and alias token agent-serve deploy recorded)")
    .option("--slug <slug>", "Local server: the agent to use when the directory holds several");
  // `--dir` comes with the host options; commands without a `[dir]` argument take it only that way.
  void dirFlag;
  return withHostOptions(command);
}

export function hostOptions(dir: unknown, argv: string[]): StartHostOptions {
  const mode = rawOption(argv, "mode") ?? "multi";
  dir = projectDir(dir, argv);
  if (mode !== "multi" && mode !== "single") throw new UsageError(`--mode must be multi or single (got "${mode}")`);
  return {
    dir: dir === undefined ? undefined : String(dir),
    mode,
    apiKey: rawOption(argv, "api-key"),
    stateRoot: rawOption(argv, "state-root"),
    storage: rawOption(argv, "storage"),
  };
}

/** Target arguments; the project directory is the `[dir]` argument or else `--dir`. */
export function targetArgs(dir: unknown, flags: Flags, argv: string[]): TargetArgs {
  for (const name of ["url", "bearer-token", "slug", "dir"]) {
    if (flags[camel(name)] !== undefined && rawOption(argv, name) === undefined) throw new UsageError(`--${name} needs a value`);
  }
  const { mode, apiKey, stateRoot, storage, dir: chosen } = hostOptions(dir, argv);
  return {
    dir: chosen,
    mode,
    apiKey,
    stateRoot,
    storage,
    url: rawOption(argv, "url"),
    bearerToken: rawOption(argv, "bearer-token"),
    slug: rawOption(argv, "slug"),
    ...(flags.prod === true ? { prod: true } : {}),
  };
}

export function port(value: unknown): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65_535) throw new UsageError(`--port must be an integer from 0 to 65535 (got "${String(value)}")`);
  return n;
}

export function positiveInteger(value: unknown, flag: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw new UsageError(`${flag} must be a positive integer (got "${String(value)}")`);
  return n;
}

export function nonNegativeInteger(value: unknown, flag: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new UsageError(`${flag} must be a non-negative integer (got "${String(value)}")`);
  return n;
}

/** The project directory: the `[dir]` argument or `--dir` (the Agent SDK's form); both must agree. */
export function projectDir(dir: unknown, argv: string[]): string | undefined {
  const flag = rawOption(argv, "dir");
  if (argv.some((arg) => arg === "--dir") && flag === undefined) throw new UsageError("--dir needs a value");
  if (dir !== undefined && flag !== undefined && String(dir) !== flag) {
    throw new UsageError(`two project directories given: "${String(dir)}" and --dir "${flag}"; pass one`);
  }
  return dir === undefined ? flag : String(dir);
}

// --- internals ---

function camel(name: string): string {
  return name.replace(/-(\w)/g, (_, c: string) => c.toUpperCase());
}
