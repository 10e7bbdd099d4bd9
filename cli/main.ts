/**
 * The `agent-serve` command line: cac wiring only; each command is a function of (args, io) in
 * its own file, loaded on use so `version` and `--help` stay fast.
 * @example
 * const code = await main({ argv: ["version"], stdout: process.stdout, stderr: process.stderr, env: process.env, cwd: process.cwd() });
 * @module
 */
import { cac } from "cac";
import { hostOptions, nonNegativeInteger, port, positiveInteger, projectDir, targetArgs, withHostOptions, withTargetOptions } from "./flags.ts";
import type { Flags } from "./flags.ts";
import { buildArgs, deployArgs, secretsArgs, withBuildOptions } from "./build-args.ts";
import { evalArgs } from "./eval-args.ts";
import { addGroupCommands } from "./group-commands.ts";
import { HelpRequested, helpCommand, helpText } from "./help.ts";
import { CommandError, EXIT_FAILURE, EXIT_OK, EXIT_USAGE, UsageError, errorMessage } from "./io.ts";
import type { CliIo } from "./io.ts";
import { logOptions, withLogOptions } from "./log-flags.ts";
import { rawOption } from "./raw-option.ts";
import type { ServeArgs } from "./serve.ts";
import { TEMPLATES } from "./templates.ts";
import { versionCommand } from "./version.ts";
import { MCP_HELP } from "./mcp-help.ts";
import { mcpOAuthArgs } from "./mcp-oauth-args.ts";
import { cloudArgs, optionalStrings } from "./cloud-flags.ts";

export interface MainOptions extends CliIo {
  /** Arguments after the program name, as in `process.argv.slice(2)`. */
  argv: string[];
}

/** Commands after which a newer version is announced (on a terminal, at most daily). */
const UPDATE_NOTICE = new Set(["chat", "resume", "init", "login", "whoami", "version"]);

/** Runs one command line and resolves with the process exit code. */
export async function main(options: MainOptions): Promise<number> {
  const { argv, ...io } = options;
  // A fresh instance per call: cac keeps the matched command between parses.
  const cli = cac("agent-serve");
  let command: (() => Promise<number> | number) | undefined;
  const json = (flags: Flags): boolean => flags.json === true;

  for (const [name, dev] of [["serve", false], ["dev", true]] as const) {
    withLogOptions(withHostOptions(cli.command(`${name} [dir]`, dev ? "Serve with --dev" : "Serve agent projects over HTTP")))
      .option("--port <port>", "Listen port; 0 picks any free port (default: 3000)")
      .option("--host <host>", "Bind address (default: 127.0.0.1)")
      .option("--dev", "Development mode: dev routes, no automatic schedules")
      .option("--bearer-token <secret>", "Require Authorization: Bearer <secret> instead of loopback-only access")
      .option("--allow-anonymous", "Admit every caller as an anonymous principal")
      .option("--oauth-issuer <url>", "Admit bearer tokens that are JWTs from this OAuth authorization server; the MCP endpoints publish protected-resource metadata naming it (needs --oauth-audience)")
      .option("--oauth-audience <uri>", "With --oauth-issuer: the audience a token must name (this server's resource, e.g. its MCP endpoint URL)")
      .option("--oauth-jwks-url <url>", "With --oauth-issuer: the signing keys' URL (default: the issuer metadata's jwks_uri)")
      .option("--oauth-scopes <scopes>", "With --oauth-issuer: scopes the metadata lists, comma- or space-separated")
      .option("--accept-unsandboxed-shell", "Serve agents whose shell runs without local.sandbox beyond loopback (--host, --allow-anonymous)")
      .option("--no-playground", "Remove the playground and the / and /v1/agents index routes")
      .option("--no-docs", "Remove the /docs documentation site")
      .option("--no-schedules", "Do not run the cron runner (outside --dev, where nothing fires on its own anyway)")
      .option("--no-control-plane", "No built-in clocks: timed work fires through POST /v1/internal/.../fire")
      .option("--strict", "Refuse to start when any agent has an error (else a broken agent among several is left out)")
      .option("--runner <url>", "A cloud runner for runtime: \"cloud\" turns; repeatable or comma-separated (env AGENT_SERVE_RUNNERS)")
      .option("--runner-secret <secret>", "The secret shared with the runners (env AGENT_SERVE_RUNNER_SECRET)")
      .option("--public-url <url>", "This host's externally reachable URL: cloud runners reach the server tools through it")
      .option("--cloud-tools-url <url>", "The authenticated MCP URL of the server tools, used as is by cloud runners")
      .action((dir: unknown, flags: Flags) => {
        const args = { ...toServeArgs(dir, flags, argv, dev), ...cloudArgs(argv, io.env) };
        command = async () => (await import("./serve.ts")).serveCommand(args, io);
      });
  }
  cli
    .command("runner [dir]", "Run the cloud turns of the agents in dir for hosts that share its secret")
    .option("--port <port>", "Listen port; 0 picks any free port (default: 3000)")
    .option("--host <host>", "Bind address (default: 127.0.0.1)")
    .option("--secret <secret>", "The secret shared with the hosts (env AGENT_SERVE_RUNNER_SECRET)")
    .option("--workdir <dir>", "Where session workspaces live (default: <dir>/.agent-serve/runner)")
    .option("--public-url <url>", "The runner's URL as hosts reach it (for agent.bound)")
    .option("--mode <mode>", "Route layout of the hosts it serves: multi or single (default: multi)")
    .option("--api-key <key>", "Model credential (else the provider's environment variable, else the stored login)")
    .option("--workspace-idle <duration>", "Remove a session's workspace when no turn used it for this long; 0 keeps it until the session is deleted (default: 7d)")
    .action((dir: unknown, flags: Flags) => {
      const mode = rawOption(argv, "mode") ?? "multi";
      if (mode !== "multi" && mode !== "single") throw new UsageError(`--mode must be multi or single (got "${mode}")`);
      const args = {
        ...(dir === undefined ? {} : { dir: String(dir) }),
        mode,
        ...(flags.port === undefined ? {} : { port: port(flags.port) }),
        ...optionalStrings(argv, { host: "host", secret: "secret", workdir: "workdir", publicUrl: "public-url", apiKey: "api-key", workspaceIdle: "workspace-idle" }),
      } as const;
      command = async () => (await import("./runner.ts")).runnerCommand(args, io);
    });
  cli
    .command("docs", "Serve the documentation site alone (at /docs)")
    .option("--port <port>", "Listen port; 0 picks any free port (default: 3000)")
    .option("--host <host>", "Bind address (default: 127.0.0.1)")
    .action((flags: Flags) => {
      const args = { port: flags.port === undefined ? undefined : port(flags.port), host: rawOption(argv, "host") };
      command = async () => (await import("./docs.ts")).docsCommand(args, io);
    });
  withLogOptions(withHostOptions(cli.command("playground [dir]", "Serve the playground: for a project, or alone for a running server (--url)"))
    .option("--port <port>", "Listen port; 0 picks any free port (default: 3000)")
    .option("--host <host>", "Bind address (default: 127.0.0.1)")
    .option("--dev", "Development mode: dev routes, no automatic schedules")
    .option("--url <baseUrl>", "A running server's agent URL (with the slug in multi mode): serve the playground alone, forwarding its API calls there")
    .option("--bearer-token <secret>", "With --url: added to every forwarded request; the browser never sees it"))
    .action((dir: unknown, flags: Flags) => {
      const url = rawOption(argv, "url");
      if (flags.url !== undefined && url === undefined) throw new UsageError("--url needs a value");
      if (url !== undefined) {
        for (const name of ["dir", "mode", "state-root", "storage", "api-key"]) {
          if (rawOption(argv, name) !== undefined) throw new UsageError(`--${name} applies to a local server only, not with --url`);
        }
        if (flags.dev === true) throw new UsageError("--dev applies to a local server only, not with --url");
        if (dir !== undefined) throw new UsageError("a project directory and --url exclude each other");
      }
      const args = { ...toServeArgs(dir, flags, argv, false), url };
      command = async () => (await import("./playground.ts")).playgroundCommand(args, io);
    });
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
        json: json(flags),
      };
      command = async () => (await import("./run.ts")).runCommand(args, io);
    });

  withTargetOptions(cli.command("chat [dir]", "Chat with an agent in the terminal (/exit or Ctrl-D quits)"), false).action(
    (dir: unknown, flags: Flags) => {
      const args = targetArgs(dir, flags, argv);
      command = async () => (await import("./chat.ts")).chatCommand(args, io);
    },
  );
  withTargetOptions(cli.command("resume <sessionId>", "Continue a chat session in the terminal"), true).action(
    (sessionId: string, flags: Flags) => {
      const args = { ...targetArgs(undefined, flags, argv), resume: sessionId };
      command = async () => (await import("./chat.ts")).chatCommand(args, io);
    },
  );
  withTargetOptions(cli.command("mcp [dir] [connection]", "Serve the agent as an MCP server over stdio (ask, check, call_tool), on the same store as serve; `mcp oauth <connection>` authorizes an MCP connection"), false)
    .option("--list", "oauth: each OAuth connection's authorization")
    .option("--revoke", "oauth: revoke the connection's tokens and remove them from the store")
    .option("--no-open", "oauth: print the authorization URL without starting a browser")
    .option("--redirect-port <port>", "oauth: the loopback redirect listener's port (default: any free port)")
    .option("--timeout-ms <ms>", "oauth: how long to wait for the browser (default: 300000)")
    .option("--json", "oauth: print {ok, connection, serverUrl, expiresAt, ...} (--list: {connections}) as JSON; tokens never")
    .example(MCP_HELP)
    .action((dir: unknown, connection: unknown, flags: Flags) => {
      if (dir === "oauth") {
        const args = mcpOAuthArgs(connection, flags, argv);
        command = async () => (await import("./mcp-oauth.ts")).mcpOAuthCommand(args, io);
        return;
      }
      if (connection !== undefined) throw new UsageError(`unexpected argument "${String(connection)}" (to authorize a connection: agent-serve mcp oauth <connection>)`);
      const args = targetArgs(dir, flags, argv);
      command = async () => (await import("./mcp.ts")).mcpCommand(args, io);
    });
  withTargetOptions(cli.command("sessions [dir]", "List sessions, newest first, a page at a time (--json includes continuation tokens)"), false)
    .option("--json", "Print {sessions, nextCursor} as JSON")
    .option("--limit <n>", "Sessions per page (default: 50, at most 500)")
    .option("--cursor <cursor>", "Start after an earlier page: the nextCursor it printed")
    .option("--all", "Follow every cursor and list every session")
    .action((dir: unknown, flags: Flags) => {
      const limit = rawOption(argv, "limit");
      const cursor = rawOption(argv, "cursor");
      if (flags["all"] === true && cursor !== undefined) throw new UsageError("sessions takes --all or --cursor, not both");
      const args = {
        ...targetArgs(dir, flags, argv),
        json: json(flags),
        ...(limit === undefined ? {} : { limit: positiveInteger(limit, "--limit") }),
        ...(cursor === undefined ? {} : { cursor }),
        all: flags["all"] === true,
      };
      command = async () => (await import("./sessions.ts")).sessionsCommand(args, io);
    });
  withTargetOptions(cli.command("session <sessionId> [rmId]", "A session's summary and its latest events; `session rm <id>` removes it; `session fork <id> --at <index>` forks it"), true)
    .option("--events <n>", "How many of the latest events to show (default: 10)")
    .option("--at <index>", "fork: the index of the last event the fork keeps")
    .option("--message <text>", "fork: a message the fork continues with at once")
    .option("--json", "Print {session, eventCount, events} as JSON (fork: the create answer)")
    .action((sessionId: string, rmId: unknown, flags: Flags) => {
      if (sessionId === "fork") {
        if (typeof rmId !== "string" || rmId === "" || rawOption(argv, "at") === undefined) throw new UsageError("session fork needs the session id and --at: agent-serve session fork <sessionId> --at <index>");
        const args = { ...targetArgs(undefined, flags, argv), sessionId: rmId, atIndex: nonNegativeInteger(rawOption(argv, "at"), "--at"), message: rawOption(argv, "message"), json: json(flags) };
        command = async () => (await import("./session-fork.ts")).sessionForkCommand(args, io);
        return;
      }
      if (sessionId === "rm") {
        if (typeof rmId !== "string" || rmId === "") throw new UsageError("session rm needs the session id: agent-serve session rm <sessionId>");
        const args = { ...targetArgs(undefined, flags, argv), sessionId: rmId, json: json(flags) };
        command = async () => (await import("./session-rm.ts")).sessionRmCommand(args, io);
        return;
      }
      if (rmId !== undefined) throw new UsageError(`unexpected argument "${String(rmId)}" (to remove a session: agent-serve session rm <sessionId>)`);
      const events = flags.events === undefined ? undefined : positiveInteger(flags.events, "--events");
      const args = { ...targetArgs(undefined, flags, argv), sessionId, events, json: json(flags) };
      command = async () => (await import("./session.ts")).sessionCommand(args, io);
    });
  withTargetOptions(cli.command("logs <sessionId>", "A session's events for people (raw NDJSON with --json)"), true)
    .option("--follow", "Keep following the live stream (Ctrl-C stops)")
    .option("--from <index>", "First event index (default: 0)")
    .option("--json", "Print the raw NDJSON lines")
    .action((sessionId: string, flags: Flags) => {
      const from = flags.from === undefined ? undefined : nonNegativeInteger(flags.from, "--from");
      const args = { ...targetArgs(undefined, flags, argv), sessionId, from, follow: flags.follow === true, json: json(flags) };
      command = async () => (await import("./logs.ts")).logsCommand(args, io);
    });
  withTargetOptions(cli.command("cost <sessionId>", "Token usage and estimated cost of a session"), true)
    .option("--json", "Print the cost report as JSON")
    .action((sessionId: string, flags: Flags) => {
      const args = { ...targetArgs(undefined, flags, argv), sessionId, json: json(flags) };
      command = async () => (await import("./cost.ts")).costCommand(args, io);
    });
  withTargetOptions(cli.command("trajectory <sessionId>", "Tool calls paired with results, durations and totals"), true)
    .option("--json", "Print the trajectory as JSON")
    .action((sessionId: string, flags: Flags) => {
      const args = { ...targetArgs(undefined, flags, argv), sessionId, json: json(flags) };
      command = async () => (await import("./trajectory.ts")).trajectoryCommand(args, io);
    });
  withTargetOptions(cli.command("call <tool>", "Call a server tool directly (POST /v1/tools/:tool)"), true)
    .option("--input <json>", "The tool input as JSON (default: {})")
    .option("--session <sessionId>", "Run the call inside this session")
    .option("--json", "Print the whole response as JSON")
    .action((toolName: string, flags: Flags) => {
      const args = { ...targetArgs(undefined, flags, argv), toolName, input: rawOption(argv, "input"), sessionId: rawOption(argv, "session"), json: json(flags) };
      command = async () => (await import("./call.ts")).callCommand(args, io);
    });
  withTargetOptions(cli.command("eval [dir]", "Run the project's evals (evals/**/*.eval.ts); exits 1 when a case fails"), true)
    .option("--list", "List the evals instead of running them")
    .option("--tag <tag>", "Only evals with this tag (repeatable: any of them)")
    .option("--filter <id>", "Only this eval id and the ids below it (repeatable: any of them)")
    .option("--timeout-ms <ms>", "Case time limit unless the case sets its own (default: the config's, else 180000)")
    .option("--json", "Print the final run snapshot (or the list) as JSON")
    .action((dir: unknown, flags: Flags) => {
      const args = evalArgs(dir, flags, argv);
      command = async () => (await import("./eval.ts")).evalCommand(args, io);
    });
  withBuildOptions(cli.command("build [dir]", "Build a worker to deploy: --target cloudflare writes entry.mjs, worker.mjs and wrangler.jsonc"))
    .option("--json", "Print {ok, outDir, files, bytes, gzipBytes, projects, config, secretNames, diagnostics} as JSON")
    .action((dir: unknown, flags: Flags) => {
      const args = buildArgs(dir, flags, argv);
      command = async () => (await import("./build.ts")).buildCommand(args, io);
    });
  withBuildOptions(cli.command("deploy [dir]", "Build, then deploy with your own wrangler (wrangler deploy); --dry-run prints the command"))
    .option("--dry-run", "Build and print the wrangler command without running it")
    .option("--json", "Print {ok, outDir, worker, command, cwd, ...} as JSON (wrangler's output goes to stderr)")
    .action((dir: unknown, flags: Flags) => {
      const args = deployArgs(dir, flags, argv);
      command = async () => (await import("./deploy.ts")).deployCommand(args, io);
    });
  cli
    .command("secrets <action> [...names]", "A built worker's secrets: `secrets set NAME...` (values from a hidden prompt or stdin lines), `secrets list`")
    .option("--target <target>", "Where the worker runs: cloudflare (through your wrangler)")
    .option("--dir <dir>", "The project directory (default: .)")
    .option("--out <dir>", "The build folder holding wrangler.jsonc (default: <dir>/.agent-serve/cloudflare)")
    .option("--from-argv", "Accept NAME=VALUE arguments (the value is then visible in shell history)")
    .option("--dry-run", "Print the wrangler commands (names only) without running them")
    .option("--json", "Print {ok, set} or {ok, names} as JSON")
    .action((action: string, names: unknown[], flags: Flags) => {
      const args = secretsArgs(action, names, flags, argv);
      command = async () => (await import("./secrets.ts")).secretsCommand(args, io);
    });
  addGroupCommands(cli, argv, io, (run) => (command = run));
  cli
    .command("init [dir]", "Scaffold an agent project")
    .option("--dir <dir>", "The directory to create, as the [dir] argument (default: .)")
    .option("--template <name>", `Project template: ${Object.keys(TEMPLATES).join(", ")} (default: basic)`)
    .option("--json", "Print {ok, dir, template, files} as JSON")
    .action((dir: unknown, flags: Flags) => {
      const args = { dir: projectDir(dir, argv), template: rawOption(argv, "template"), json: json(flags) };
      command = async () => (await import("./init.ts")).initCommand(args, io);
    });
  cli
    .command("login", "Store a model credential (from stdin, or a hidden prompt on a terminal)")
    .option("--provider <name>", "openai, anthropic, xai or openai-compatible (default: openai)")
    .option("--json", "Print {ok, provider, path, masked} as JSON")
    .action((flags: Flags) => {
      const args = { provider: rawOption(argv, "provider"), json: json(flags) };
      command = async () => (await import("./login.ts")).loginCommand(args, io);
    });
  cli
    .command("logout", "Remove the stored login file")
    .option("--json", "Print {ok, removed, path} as JSON")
    .action((flags: Flags) => {
      command = async () => (await import("./logout.ts")).logoutCommand({ json: json(flags) }, io);
    });
  cli
    .command("whoami", "Which credentials are stored or set (masked)")
    .option("--json", "Print {credentialsFile, providers} as JSON")
    .action((flags: Flags) => {
      command = async () => (await import("./whoami.ts")).whoamiCommand({ json: json(flags) }, io);
    });
  cli
    .command("storage <action>", "Copy a store into another: `storage migrate --from <url> --to <url>` (sqlite:<path>, redis://…, postgres://…)")
    .option("--from <url>", "The store to copy")
    .option("--to <url>", "The store to copy into (it must hold no session)")
    .option("--json", "Print {ok, records, sessions, logs, lines, seconds} as JSON")
    .action((action: string, flags: Flags) => {
      if (action !== "migrate") throw new UsageError(`unknown storage action "${action}"; the one action is migrate`);
      const args = { from: rawOption(argv, "from"), to: rawOption(argv, "to"), json: json(flags) };
      command = async () => (await import("./storage-migrate.ts")).storageMigrateCommand(args, io);
    });
  cli
    .command("update", "Check the registry for a newer agent-serve")
    .option("--json", "Print {current, latest, updateAvailable, checkedAt, cached} as JSON")
    .action((flags: Flags) => {
      command = async () => (await import("./update.ts")).updateCommand({ json: json(flags) }, io);
    });
  cli
    .command("info [dir]", "The project surface without starting a server: model, tools, hooks, experiments, diagnostics")
    .option("--dir <dir>", "The project directory, as the [dir] argument (default: .)")
    .option("--mode <mode>", "Route layout: multi or single (default: multi)")
    .option("--api-key <key>", "Model credential, only to tell which default model a server would use")
    .option("--json", "Print {projects, diagnostics}: per project the GET /v1/info object plus its dir")
    .action((dir: unknown, flags: Flags) => {
      const { dir: projectDir, mode, apiKey } = hostOptions(dir, argv);
      const args = { dir: projectDir, mode, apiKey, json: json(flags) };
      command = async () => (await import("./info.ts")).infoCommand(args, io);
    });
  cli
    .command("validate [dir]", "Print the project's diagnostics; exit 1 on any error")
    .option("--dir <dir>", "The project directory, as the [dir] argument (default: .)")
    .option("--mode <mode>", "Route layout: multi or single (default: multi)")
    .option("--json", "Print {ok, errors, warnings, projects, diagnostics} as JSON")
    .action((dir: unknown, flags: Flags) => {
      const { dir: projectDir, mode } = hostOptions(dir, argv);
      const args = { dir: projectDir, mode, json: json(flags) };
      command = async () => (await import("./validate.ts")).validateCommand(args, io);
    });
  cli.command("version", "Print the version").action(() => {
    command = () => versionCommand(io);
  });
  cli
    .command("help [command]", "Help for one command, or for all with --all")
    .option("--all", "Every command's help")
    .option("--json", "Arguments and flags as JSON")
    .action((name: unknown, flags: Flags) => {
      const args = { command: name === undefined ? undefined : String(name), all: flags.all === true, json: json(flags) };
      command = () => helpCommand(args, cli, io);
    });
  // `--json` means the same everywhere: the result as JSON where a command has one, and errors as
  // `{ok: false, error, message}` on every command (see docs/guide/cli.md).
  for (const each of cli.commands) {
    if (!each.options.some((option) => option.name === "json")) each.option("--json", "Print errors as JSON ({ok:false, error, message})");
  }
  cli.option("-v, --version", "Print the version");
  cli.help((sections) => {
    // cac prints help with console.info; hand the text to our stdout instead and stop there.
    const text = sections.map((s) => (s.title ? `${s.title}:\n${s.body}` : s.body)).join("\n\n");
    // cac labels every `--no-x` flag "(default: true)", which reads as if the flag were on.
    throw new HelpRequested(text.replace(/^(\s+--no-.*?) \(default: true\)$/gm, "$1").replace(/ +$/gm, ""));
  });

  try {
    const parsed = cli.parse(["node", "agent-serve", ...argv], { run: false });
    if (parsed.options.version && !cli.matchedCommandName) return versionCommand(io);
    if (!cli.matchedCommand) {
      if (cli.args.length > 0) throw new UsageError(`unknown command "${String(cli.args[0])}"; run agent-serve --help`);
      // A bare `agent-serve` asked for nothing: the help, on stderr, and a usage exit (scripts notice).
      if (argv.length === 0) {
        io.stderr.write(`${helpText(cli.globalCommand)}\n`);
        return EXIT_USAGE;
      }
      cli.outputHelp();
      return EXIT_OK;
    }
    await cli.runMatchedCommand();
    if (!command) return EXIT_OK;
    const code = await command();
    if (code === EXIT_OK && UPDATE_NOTICE.has(cli.matchedCommand.name)) {
      await (await import("./update.ts")).maybeNotifyUpdate(io, { json: parsed.options.json === true });
    }
    return code;
  } catch (error) {
    if (error instanceof HelpRequested) {
      io.stdout.write(`${error.message}\n`);
      return EXIT_OK;
    }
    const usage = error instanceof UsageError || (error instanceof Error && error.name === "CACError");
    if (wantsJson(argv)) return reportAsJson(io, error, usage);
    if (usage) {
      io.stderr.write(`agent-serve: ${error.message}\n`);
      return EXIT_USAGE;
    }
    if (error instanceof CommandError) {
      io.stderr.write(`agent-serve: ${error.message}\n`);
      return EXIT_FAILURE;
    }
    io.stderr.write(`agent-serve: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    return EXIT_FAILURE;
  }
}

// --- internals ---

function wantsJson(argv: readonly string[]): boolean {
  const end = argv.indexOf("--");
  return (end === -1 ? argv : argv.slice(0, end)).includes("--json");
}

/** A failure under `--json`: `{ok: false, error, message}` on stdout, where the result would be. */
function reportAsJson(io: CliIo, error: unknown, usage: boolean): number {
  const expected = usage || error instanceof CommandError;
  const code = usage ? "usage_error" : expected ? "command_failed" : "internal_error";
  const message = errorMessage(error);
  io.stdout.write(`${JSON.stringify({ ok: false, error: code, message })}\n`);
  if (!expected) io.stderr.write(`agent-serve: ${error instanceof Error ? (error.stack ?? message) : message}\n`);
  return usage ? EXIT_USAGE : EXIT_FAILURE;
}

function toServeArgs(dir: unknown, flags: Flags, argv: string[], dev: boolean): ServeArgs {
  const bearerToken = rawOption(argv, "bearer-token");
  const allowAnonymous = flags.allowAnonymous === true;
  if (bearerToken !== undefined && allowAnonymous) {
    throw new UsageError("--bearer-token and --allow-anonymous are mutually exclusive: pass one of them");
  }
  if (flags.bearerToken !== undefined && !bearerToken) throw new UsageError("--bearer-token needs a value");
  const oauth = oauthFlags(argv, allowAnonymous);
  return {
    ...(oauth ? { oauth } : {}),
    ...hostOptions(dir, argv),
    ...logOptions(argv),
    ...(flags.strict === true ? { strict: true } : {}),
    dev: dev || flags.dev === true,
    port: flags.port === undefined ? undefined : port(flags.port),
    host: rawOption(argv, "host") ?? "127.0.0.1",
    bearerToken,
    allowAnonymous,
    acceptUnsandboxedShell: flags.acceptUnsandboxedShell === true,
    playground: flags.playground !== false,
    docs: flags.docs !== false,
    schedules: flags.schedules !== false,
    controlPlane: flags.controlPlane !== false,
  };
}

/** `--oauth-*` (docs/design/mcp-oauth-flags.md): all or nothing, absolute URLs, never with --allow-anonymous. */
function oauthFlags(argv: string[], allowAnonymous: boolean): ServeArgs["oauth"] {
  const issuer = rawOption(argv, "oauth-issuer");
  const audience = rawOption(argv, "oauth-audience");
  const jwksUrl = rawOption(argv, "oauth-jwks-url");
  const scopes = rawOption(argv, "oauth-scopes");
  if (issuer === undefined) {
    if (audience !== undefined || jwksUrl !== undefined || scopes !== undefined) throw new UsageError("--oauth-audience, --oauth-jwks-url and --oauth-scopes go with --oauth-issuer");
    return undefined;
  }
  if (allowAnonymous) throw new UsageError("--oauth-issuer and --allow-anonymous are mutually exclusive: tokens would be checked for nothing");
  if (!audience) throw new UsageError("--oauth-issuer needs --oauth-audience: the audience a token must name, so a token issued for another server is refused");
  for (const [flag, value] of [["--oauth-issuer", issuer], ["--oauth-jwks-url", jwksUrl]] as const) {
    if (value === undefined) continue;
    let url: URL | undefined;
    try {
      url = new URL(value);
    } catch {
      url = undefined;
    }
    if (!url || (url.protocol !== "https:" && url.protocol !== "http:")) throw new UsageError(`${flag} needs an absolute http(s) URL, got ${JSON.stringify(value)}`);
  }
  const scopeList = scopes?.split(/[\s,]+/).filter((scope) => scope !== "");
  return { issuer, audience, ...(jwksUrl ? { jwksUrl } : {}), ...(scopeList?.length ? { scopes: scopeList } : {}) };
}
