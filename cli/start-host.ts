/**
 * Shared start-up of `serve`, `dev` and `run`: the adapters' composition root
 * (`adapters/_project.ts`) loads the projects and binds the host; this file prints the
 * diagnostics, refuses on errors and routes the host's log lines to the CLI's streams.
 * @module
 */
import { resolve } from "node:path";
import { createProjectHost, formatDiagnostic, loadProjectWith, stateRootFor } from "../adapters/_project.ts";
import type { ProjectRuntime } from "../adapters/_project.ts";
import { serveWith } from "../adapters/_serve.ts";
import type { FetchHandler, RunningServer, ServeOptions } from "../adapters/_serve.ts";
import { nodeRuntime } from "../adapters/node.ts";
import type { DiscoveredProject } from "../loader/discover.ts";
import type { AgentHost, HostLogger } from "../src/types.ts";
import type { CliIo } from "./io.ts";

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
  bearerToken?: string;
  allowAnonymous?: boolean;
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
}

export interface StartedHost {
  host: AgentHost;
  projects: DiscoveredProject[];
  mode: "multi" | "single";
}

/**
 * Loads the projects and creates the host, or prints every diagnostic and returns `undefined`
 * when any has severity `error` (`serve` refuses to start when errors exist).
 */
export async function startHost(options: StartHostOptions, io: CliIo): Promise<StartedHost | undefined> {
  const loaded = await loadProjectWith(runtimeOf(io), resolve(io.cwd, options.dir ?? "."), { mode: options.mode });
  for (const { diagnostic, where } of loaded.diagnostics) {
    if (diagnostic.severity !== "info") io.stderr.write(`${formatDiagnostic(diagnostic, where)}\n`);
  }
  if (loaded.errors > 0) {
    io.stderr.write(`agent-serve: not starting: ${loaded.errors} error${loaded.errors === 1 ? "" : "s"} in the project\n`);
    return undefined;
  }
  const host = await createProjectHost(loaded, {
    ...options,
    cwd: io.cwd,
    env: io.env,
    logger: createCliLogger(io, options.infoTo ?? "stdout"),
  });
  return { host, projects: loaded.projects, mode: loaded.mode };
}

/** Listens with the runtime's srvx adapter (Node unless the bin passed Bun's or Deno's). */
export function listenHost(host: FetchHandler, options: ServeOptions, io: CliIo): Promise<RunningServer> {
  return serveWith(runtimeOf(io).serve, host, options);
}

// --- internals ---

function runtimeOf(io: CliIo): ProjectRuntime {
  return io.runtime ?? nodeRuntime;
}

function createCliLogger(io: CliIo, infoTo: "stdout" | "stderr" | "none"): HostLogger {
  return {
    info: (message) => {
      if (infoTo !== "none") io[infoTo].write(`[agent-serve] ${message}\n`);
    },
    warn: (message) => io.stderr.write(`[agent-serve] ${message}\n`),
    error: (message, cause) => {
      const detail = cause instanceof Error ? `: ${cause.stack ?? cause.message}` : "";
      io.stderr.write(`[agent-serve] ${message}${detail}\n`);
    },
  };
}
