/**
 * The `agent-serve` command line: cac wiring only; each command is a function of (args, io).
 * @example
 * const code = await main({ argv: ["version"], stdout: process.stdout, stderr: process.stderr, env: process.env, cwd: process.cwd() });
 * @module
 */
import { cac } from "cac";
import { EXIT_FAILURE, EXIT_OK, EXIT_USAGE, UsageError } from "./io.ts";
import type { CliIo } from "./io.ts";
import { rawOption } from "./raw-option.ts";
import type { ServeArgs } from "./serve.ts";
import type { StartHostOptions } from "./start-host.ts";
import { versionCommand } from "./version.ts";

export interface MainOptions extends CliIo {
  /** Arguments after the program name, as in `process.argv.slice(2)`. */
  argv: string[];
}

type Flags = Record<string, unknown>;

/** Runs one command line and resolves with the process exit code. */
export async function main(options: MainOptions): Promise<number> {
  const { argv, ...io } = options;
  // A fresh instance per call: cac keeps the matched command between parses.
  const cli = cac("agent-serve");
  let command: (() => Promise<number> | number) | undefined;

  for (const [name, dev] of [["serve", false], ["dev", true]] as const) {
    withHostOptions(cli.command(`${name} [dir]`, dev ? "Serve with --dev" : "Serve agent projects over HTTP"))
      .option("--port <port>", "Listen port; 0 picks any free port (default: 3000)")
      .option("--host <host>", "Bind address (default: 127.0.0.1)")
      .option("--dev", "Development mode: dev routes, no automatic schedules")
      .option("--bearer-token <secret>", "Require Authorization: Bearer <secret> instead of loopback-only access")
      .option("--allow-anonymous", "Admit every caller as an anonymous principal")
      .action((dir: unknown, flags: Flags) => {
        const args = toServeArgs(dir, flags, argv, dev);
        // Loaded on use so `version` and `--help` stay fast.
        command = async () => (await import("./serve.ts")).serveCommand(args, io);
      });
  }
  withHostOptions(cli.command("run [dir]", "Send one message to an ephemeral local server and print the reply"))
    .option("--message <text>", "The message to send")
    .option("--slug <slug>", "Agent to talk to when the directory holds several")
    .option("--timeout-ms <ms>", "Give up after this long (default: 300000)")
    .option("--json", "Print {sessionId, continuationToken, text, usage} as JSON")
    .action((dir: unknown, flags: Flags) => {
      const message = rawOption(argv, "message");
      if (message === undefined) throw new UsageError("run needs --message <text>");
      const args = {
        ...hostOptions(dir, argv),
        message,
        slug: rawOption(argv, "slug"),
        timeoutMs: flags.timeoutMs === undefined ? undefined : positiveInteger(flags.timeoutMs, "--timeout-ms"),
        json: flags.json === true,
      };
      command = async () => (await import("./run.ts")).runCommand(args, io);
    });
  cli.command("version", "Print the version").action(() => {
    command = () => versionCommand(io);
  });
  cli.option("-v, --version", "Print the version");
  cli.help((sections) => {
    // cac prints help with console.info; hand the text to our stdout instead and stop there.
    const text = sections.map((s) => (s.title ? `${s.title}:\n${s.body}` : s.body)).join("\n\n");
    throw new HelpRequested(text.replace(/ +$/gm, ""));
  });

  try {
    const parsed = cli.parse(["node", "agent-serve", ...argv], { run: false });
    if (parsed.options.version && !cli.matchedCommandName) return versionCommand(io);
    if (!cli.matchedCommand) {
      if (cli.args.length > 0) throw new UsageError(`unknown command "${String(cli.args[0])}"; run agent-serve --help`);
      cli.outputHelp();
      return EXIT_OK;
    }
    await cli.runMatchedCommand();
    if (!command) return EXIT_OK;
    return await command();
  } catch (error) {
    if (error instanceof HelpRequested) {
      io.stdout.write(`${error.message}\n`);
      return EXIT_OK;
    }
    if (error instanceof UsageError || (error instanceof Error && error.name === "CACError")) {
      io.stderr.write(`agent-serve: ${error.message}\n`);
      return EXIT_USAGE;
    }
    io.stderr.write(`agent-serve: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    return EXIT_FAILURE;
  }
}

// --- internals ---

class HelpRequested extends Error {
  override readonly name = "HelpRequested";
}

interface CommandLike {
  option(rawName: string, description: string): CommandLike;
}

function withHostOptions<T extends CommandLike>(command: T): T {
  command
    .option("--mode <mode>", "Route layout: multi or single (default: multi)")
    .option("--api-key <key>", "Model credential (else the provider's environment variable, else the stored login)")
    .option("--state-root <dir>", "Directory for sessions and streams (default: <project>/.agent-serve[/<slug>])");
  return command;
}

function hostOptions(dir: unknown, argv: string[]): StartHostOptions {
  const mode = rawOption(argv, "mode") ?? "multi";
  if (mode !== "multi" && mode !== "single") throw new UsageError(`--mode must be multi or single (got "${mode}")`);
  return {
    dir: dir === undefined ? undefined : String(dir),
    mode,
    apiKey: rawOption(argv, "api-key"),
    stateRoot: rawOption(argv, "state-root"),
  };
}

function toServeArgs(dir: unknown, flags: Flags, argv: string[], dev: boolean): ServeArgs {
  const bearerToken = rawOption(argv, "bearer-token");
  const allowAnonymous = flags.allowAnonymous === true;
  if (bearerToken !== undefined && allowAnonymous) {
    throw new UsageError("--bearer-token and --allow-anonymous are mutually exclusive: pass one of them");
  }
  if (flags.bearerToken !== undefined && !bearerToken) throw new UsageError("--bearer-token needs a value");
  return {
    ...hostOptions(dir, argv),
    dev: dev || flags.dev === true,
    port: flags.port === undefined ? undefined : port(flags.port),
    host: rawOption(argv, "host") ?? "127.0.0.1",
    bearerToken,
    allowAnonymous,
  };
}

function port(value: unknown): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65_535) throw new UsageError(`--port must be an integer from 0 to 65535 (got "${String(value)}")`);
  return n;
}

function positiveInteger(value: unknown, flag: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw new UsageError(`${flag} must be a positive integer (got "${String(value)}")`);
  return n;
}
