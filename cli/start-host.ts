/**
 * Shared start-up of `serve`, `dev` and `run`: the adapters' composition root
 * (`adapters/_project.ts`) loads the projects and binds the host; this file prints the
 * diagnostics, refuses on errors and routes the host's log lines to the CLI's streams.
 * @module
 */
import { resolve } from "node:path";
import { createProjectHost, formatDiagnostic, loadProjectWith, stateRootFor } from "../adapters/_project.ts";
import type { ProjectHostOptions, ProjectRuntime } from "../adapters/_project.ts";
import { serveWith } from "../adapters/_serve.ts";
import type { FetchHandler, RunningServer, ServeOptions } from "../adapters/_serve.ts";
import { nodeRuntime } from "../adapters/node.ts";
import type { DiscoveredProject } from "../adapters/_discovery.ts";
import type { AgentHost, LogLevel } from "../src/index.ts";
import { isLoopbackAddress } from "../src/entries/channels.ts";
import { hasUnsandboxedShell, UNSANDBOXED_SHELL_CODE, UNSANDBOXED_SHELL_MESSAGE } from "../src/entries/inspect.ts";
import { type LogFormat, createCliLogger } from "./cli-logger.ts";
import { selectHealthyProjects } from "./healthy-projects.ts";
import type { CliIo } from "./io.ts";
import { stateRootProblem } from "./state-root-check.ts";
import { parseStorageUrl } from "./storage-url.ts";

export { formatDiagnostic, stateRootFor };

export interface StartHostOptions {
  /** Served directory, relative to `io.cwd`. @default "." */
  dir?: string;
  /** @default "multi" */
  mode?: "multi" | "single";
  /** @default false */
  dev?: boolean;
  apiKey?: string;
  /** @default `<project>/.agent-serve` (single) or `<project>/.agent-serve/<slug>` (multi) */
  stateRoot?: string;
  /** `sqlite:<path>`, `memory:`, `redis://…` or `postgres://…`; else `AGENT_SERVE_STORAGE`, else `<state root>/state.db`. */
  storage?: string;
  bearerToken?: string;
  allowAnonymous?: boolean;
  /** `--oauth-issuer` and its companions: JWT bearer tokens from an authorization server. */
  oauth?: ProjectHostOptions["oauth"];
  /**
   * Recover crashed turns on start. Only long-running servers do: a short-lived command host may
   * share the state root with a live `serve`, whose running turns are not crashed. @default true
   */
  recover?: boolean;
  /** Where the host's info lines go; warnings and errors always go to stderr. @default stdout */
  infoTo?: "stdout" | "stderr" | "none";
  /** `--no-playground` sets false: no playground SPA, no `/` and `/v1/agents` index. @default true */
  playground?: boolean;
  /**
   * Mount the `/docs` site (rendered from the package's Markdown at start). `serve` and `dev`
   * pass true unless `--no-docs`; short-lived command hosts need no site. @default false
   */
  docs?: boolean;
  /** `--no-schedules` sets false: no cron runner outside dev. @default true */
  schedules?: boolean;
  /** `--no-control-plane` sets false: no clocks; the internal fire routes are mounted. @default true */
  controlPlane?: boolean;
  /** The address `serve` binds: beyond loopback, an agent with unsandboxed `shell` is refused. */
  listenHost?: string;
  /**
   * `--accept-unsandboxed-shell`: serve agents whose `shell` runs unconfined beyond loopback
   * (a non-loopback `--host` or `--allow-anonymous`). Security: anyone admitted can then run
   * commands as the serving user. @default false
   */
  acceptUnsandboxedShell?: boolean;
  /**
   * `--strict`: refuse to start when any agent has an error. Without it, a folder of several
   * agents serves the healthy ones and reports the broken ones. @default false
   */
  strict?: boolean;
  /** `dev`: the stores and the end of live streams, kept across reloads (./dev-reload.ts). */
  carryOver?: ProjectHostOptions["carryOver"];
  /** A `dev` reload: the projects served so far; a broken agent keeps its version from here. */
  lastGood?: readonly DiscoveredProject[];
  /** `--runner`, `--runner-secret`, `--public-url`, `--cloud-tools-url` (./cloud-flags.ts). */
  cloud?: ProjectHostOptions["cloud"];
  /** `--log-level`: lines below it are dropped. @default "info" */
  logLevel?: LogLevel;
  /** `--log-format`: text for people, json (one object per line) for machines. @default "text" */
  logFormat?: LogFormat;
}

export interface StartedHost {
  host: AgentHost;
  projects: DiscoveredProject[];
  /** Agents left out for their errors (a folder of several agents, without `strict`). */
  skipped: Array<{ slug: string; errors: number }>;
  /** Broken agents served in their last good version (a `dev` reload). */
  kept: Array<{ slug: string; previous: DiscoveredProject }>;
  mode: "multi" | "single";
}

/**
 * Loads the projects and creates the host, or prints every diagnostic and returns `undefined`
 * when errors refuse the start (see `healthy-projects.ts`: one broken agent among several is
 * left out instead, unless `strict`).
 */
export async function startHost(options: StartHostOptions, io: CliIo): Promise<StartedHost | undefined> {
  // A bad storage URL is a usage error before anything is loaded.
  const storage = parseStorageUrl(options.storage ?? (io.env.AGENT_SERVE_STORAGE || undefined));
  const loaded = await loadProjectWith(runtimeOf(io), resolve(io.cwd, options.dir ?? "."), { mode: options.mode });
  for (const { diagnostic, where } of loaded.diagnostics) {
    if (diagnostic.severity !== "info") io.stderr.write(`${formatDiagnostic(diagnostic, where)}\n`);
  }
  const folder = loaded.diagnostics.filter(({ where }) => where === "").map(({ diagnostic }) => diagnostic);
  const selection = selectHealthyProjects(
    { diagnostics: folder, projects: loaded.projects },
    { strict: options.strict === true, ...(options.lastGood ? { lastGood: options.lastGood } : {}) },
  );
  if (selection.refused !== undefined) {
    io.stderr.write(`agent-serve: not starting: ${selection.refused}\n`);
    return undefined;
  }
  for (const { slug, errors } of selection.skipped) {
    io.stderr.write(`agent-serve: not serving ${slug}: ${errors} error${errors === 1 ? "" : "s"} (above); the other agents serve (--strict refuses instead)\n`);
  }
  if (!checkShellExposure(selection.serve, options, io)) return undefined;
  for (const { slug, dir } of selection.serve) {
    const root = stateRootFor({ mode: loaded.mode, slug, projectDir: dir, stateRoot: options.stateRoot, cwd: io.cwd });
    const problem = await stateRootProblem(root);
    if (problem) {
      io.stderr.write(
        `agent-serve: warning: the state root ${root} is not writable (${problem}): reads work, writes answer 503 storage_unavailable\n`,
      );
    }
  }
  const host = await createProjectHost(
    { ...loaded, projects: selection.serve, errors: 0 },
    {
      ...options,
      storage,
      cwd: io.cwd,
      env: io.env,
      logger: createCliLogger(io, { infoTo: options.infoTo ?? "stdout", format: options.logFormat ?? "text" }),
      // A command's own host (infoTo "none") shows the session through the command; its log adds
      // only the host's own failures.
      logLevel: options.logLevel ?? (options.infoTo === "none" ? "error" : "info"),
    },
    runtimeOf(io),
  );
  return { host, projects: selection.serve, skipped: selection.skipped, kept: selection.kept, mode: loaded.mode };
}

/** Listens with the runtime's srvx adapter (Node unless the bin passed Bun's or Deno's). */
export function listenHost(host: FetchHandler, options: ServeOptions, io: CliIo): Promise<RunningServer> {
  return serveWith(runtimeOf(io).serve, host, options);
}

// --- internals ---

/**
 * Warns for every agent whose model may run `shell` unconfined, and refuses to serve one to
 * callers beyond this machine (a non-loopback bind or --allow-anonymous) unless
 * --accept-unsandboxed-shell says so (docs/design/faults.md).
 */
function checkShellExposure(projects: DiscoveredProject[], options: StartHostOptions, io: CliIo): boolean {
  const exposed = projects.filter(({ project }) => hasUnsandboxedShell(project)).map(({ slug }) => slug);
  if (exposed.length === 0 || options.infoTo === "none") return true;
  for (const slug of exposed) io.stderr.write(`warning [${UNSANDBOXED_SHELL_CODE}] ${slug}: ${UNSANDBOXED_SHELL_MESSAGE}\n`);
  const beyondLoopback = options.allowAnonymous === true || (options.listenHost !== undefined && !isLoopbackName(options.listenHost));
  if (!beyondLoopback || options.acceptUnsandboxedShell === true) return true;
  const why = options.allowAnonymous === true ? "--allow-anonymous" : `--host ${options.listenHost}`;
  io.stderr.write(
    `agent-serve: not starting: ${exposed.join(", ")} would let anyone reaching ${why} run unsandboxed shell commands; ` +
      "set local: { sandbox: true }, leave shell out of tools, or pass --accept-unsandboxed-shell\n",
  );
  return false;
}

function isLoopbackName(host: string): boolean {
  const name = host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host;
  return name === "localhost" || isLoopbackAddress(name);
}

function runtimeOf(io: CliIo): ProjectRuntime {
  return io.runtime ?? nodeRuntime;
}
