/**
 * The arguments of `agent-serve build`, `deploy` and `secrets`, read from cac's flags and the raw
 * argv (paths and names as written; cac turns numeric-looking values into numbers).
 * @module
 */
import type { BuildArgs } from "./build.ts";
import type { DeployArgs } from "./deploy.ts";
import { type Flags, projectDir } from "./flags.ts";
import { UsageError } from "./io.ts";
import { rawOption } from "./raw-option.ts";
import type { SecretsArgs } from "./secrets.ts";

interface CommandLike {
  option(rawName: string, description: string): CommandLike;
}

/** Options of `build` and `deploy`. */
export function withBuildOptions<T extends CommandLike>(command: T): T {
  command
    .option("--target <target>", "Where the build runs: cloudflare (Cloudflare Workers)")
    .option("--dir <dir>", "The project directory, as the [dir] argument (default: .)")
    .option("--out <dir>", "Where the files go (default: <dir>/.agent-serve/cloudflare)")
    .option("--mode <mode>", "Route layout: multi or single (default: multi)")
    .option("--name <name>", "The worker's name on Cloudflare (default: the project's name)")
    .option("--no-docs", "Leave the /docs site out of the worker")
    .option("--no-playground", "Leave the playground out of the worker");
  return command;
}

export function buildArgs(dir: unknown, flags: Flags, argv: string[]): BuildArgs {
  const mode = rawOption(argv, "mode") ?? "multi";
  if (mode !== "multi" && mode !== "single") throw new UsageError(`--mode must be multi or single (got "${mode}")`);
  for (const name of ["out", "name"]) {
    if (flags[name] !== undefined && rawOption(argv, name) === undefined) throw new UsageError(`--${name} needs a value`);
  }
  const chosen = projectDir(dir, argv);
  const out = rawOption(argv, "out");
  const name = rawOption(argv, "name");
  return {
    target: target(argv),
    ...(chosen === undefined ? {} : { dir: chosen }),
    ...(out === undefined ? {} : { out }),
    ...(name === undefined ? {} : { name }),
    mode,
    docs: flags.docs !== false,
    playground: flags.playground !== false,
    json: flags.json === true,
  };
}

export function deployArgs(dir: unknown, flags: Flags, argv: string[]): DeployArgs {
  return { ...buildArgs(dir, flags, argv), dryRun: flags.dryRun === true };
}

export function secretsArgs(action: string, names: unknown[], flags: Flags, argv: string[]): SecretsArgs {
  if (action !== "set" && action !== "list") throw new UsageError(`secrets has two actions, set and list (got "${action}")`);
  if (action === "list" && names.length > 0) throw new UsageError("secrets list takes no names");
  const chosen = rawOption(argv, "dir");
  const out = rawOption(argv, "out");
  // Names as written: cac may have turned one into a number, which no valid name is anyway.
  return {
    action,
    names: names.map(String),
    target: target(argv),
    ...(chosen === undefined ? {} : { dir: chosen }),
    ...(out === undefined ? {} : { out }),
    fromArgv: flags.fromArgv === true,
    dryRun: flags.dryRun === true,
    json: flags.json === true,
  };
}

// --- internals ---

function target(argv: string[]): "cloudflare" {
  const value = rawOption(argv, "target");
  if (value === undefined) throw new UsageError("--target is required: --target cloudflare (Cloudflare Workers)");
  if (value !== "cloudflare") throw new UsageError(`unknown --target "${value}": the target there is is cloudflare (Cloudflare Workers)`);
  return value;
}
