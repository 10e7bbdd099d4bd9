/**
 * Shared start-up of `serve`, `dev` and `run`: discover and load the projects, refuse on error
 * diagnostics, give each mount its fs storage, resolve model credentials and create the host.
 * @module
 */
import { join, resolve } from "node:path";
import { createFsStorage } from "../drivers/fs/index.ts";
import { resolveCredentials } from "../loader/credentials.ts";
import type { CredentialProvider } from "../loader/credentials.ts";
import { discoverProjects } from "../loader/discover.ts";
import { createLocalRuntime } from "../loader/runtime.ts";
import type { DiscoveredProject } from "../loader/discover.ts";
import { createHost } from "../src/host.ts";
import type { Diagnostic } from "../src/project/types.ts";
import type { AgentHost, AgentMount, LogLevel } from "../src/types.ts";
import { type LogFormat, createCliLogger } from "./cli-logger.ts";
import { selectHealthyProjects } from "./healthy-projects.ts";
import type { CliIo } from "./io.ts";

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
  /**
   * `--strict`: refuse to start when any agent has an error. Without it, a folder of several
   * agents serves the healthy ones and reports the broken ones. @default false
   */
  strict?: boolean;
  /** A `dev` reload: the projects served so far; a broken agent keeps its version from here. */
  lastGood?: readonly DiscoveredProject[];
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
  const mode = options.mode ?? "multi";
  // Rendered alongside project discovery; the host needs the pages only once it is created.
  const docs = options.docs === true ? import("../loader/docs-site.ts").then((m) => m.renderDocsSite()) : undefined;
  // A broken install without the page's files still serves every agent, with a warning.
  const playground =
    options.playground === false
      ? undefined
      : import("../loader/playground-site.ts")
          .then((m) => m.readPlaygroundSite())
          .catch((error: unknown) => {
            io.stderr.write(`agent-serve: playground unavailable: ${error instanceof Error ? error.message : String(error)}\n`);
            return true as const;
          });
  // Discovery errors return early; the render must not become an unhandled rejection then.
  docs?.catch(() => {});
  const discovery = await discoverProjects(resolve(io.cwd, options.dir ?? "."), { mode });
  const all = [
    ...discovery.diagnostics.map((diagnostic) => ({ diagnostic, where: "" })),
    ...discovery.projects.flatMap(({ slug, project }) =>
      project.diagnostics.map((diagnostic) => ({ diagnostic, where: slug })),
    ),
  ];
  for (const { diagnostic, where } of all) {
    if (diagnostic.severity !== "info") io.stderr.write(`${formatDiagnostic(diagnostic, where)}\n`);
  }
  const selection = selectHealthyProjects(discovery, { strict: options.strict === true, ...(options.lastGood ? { lastGood: options.lastGood } : {}) });
  if (selection.refused !== undefined) {
    io.stderr.write(`agent-serve: not starting: ${selection.refused}\n`);
    return undefined;
  }
  for (const { slug, errors } of selection.skipped) {
    io.stderr.write(`agent-serve: not serving ${slug}: ${errors} error${errors === 1 ? "" : "s"} (above); the other agents serve (--strict refuses instead)\n`);
  }
  const agents: AgentMount[] = selection.serve.map(({ slug, dir, project }) => {
    const root = stateRootFor({ mode, slug, projectDir: dir, stateRoot: options.stateRoot, cwd: io.cwd });
    return { slug, project, storage: createFsStorage({ root }), runtime: createLocalRuntime({ stateRoot: root }) };
  });
  const credentials = resolveCredentials({
    apiKey: options.apiKey,
    provider: apiKeyProvider(selection.serve),
    env: io.env,
  });
  const host = createHost({
    agents,
    mode,
    dev: options.dev ?? false,
    auth: { bearerToken: options.bearerToken, allowAnonymous: options.allowAnonymous },
    models: { credentials, openaiCompatibleBaseURL: io.env.AGENT_SERVE_OPENAI_BASE_URL || undefined },
    logger: createCliLogger(io, { infoTo: options.infoTo ?? "stdout", format: options.logFormat ?? "text" }),
    // A command's own host (infoTo "none") shows the session through the command; its log adds
    // only the host's own failures.
    logLevel: options.logLevel ?? (options.infoTo === "none" ? "error" : "info"),
    recoverOnStart: options.recover ?? true,
    playground: (await playground) ?? false,
    docs: docs ? await docs : false,
    schedules: options.schedules ?? true,
    controlPlane: options.controlPlane ?? true,
  });
  return { host, projects: selection.serve, skipped: selection.skipped, kept: selection.kept, mode };
}

/**
 * State root of one mount (SPEC "Start-up options"): an explicit root R is R in single mode and
 * R/<slug> in multi mode; the default lives in the project folder.
 */
export function stateRootFor(input: {
  mode: "multi" | "single";
  slug: string;
  projectDir: string;
  stateRoot?: string;
  cwd: string;
}): string {
  const base = input.stateRoot === undefined ? join(input.projectDir, ".agent-serve") : resolve(input.cwd, input.stateRoot);
  return input.mode === "single" ? base : join(base, input.slug);
}

export function formatDiagnostic(diagnostic: Diagnostic, where: string): string {
  const place = [where, diagnostic.file].filter(Boolean).join(": ");
  return `${diagnostic.severity} [${diagnostic.code}]${place ? ` ${place}:` : ""} ${diagnostic.message}`;
}

// --- internals ---

/** `--api-key` belongs to the provider of the first agent that names one. */
function apiKeyProvider(projects: DiscoveredProject[]): CredentialProvider | undefined {
  for (const { project } of projects) {
    const model = project.agent.model;
    const id = typeof model === "string" ? model : model?.id;
    const provider = id?.split("/")[0];
    if (provider === "openai" || provider === "anthropic" || provider === "openai-compatible") return provider;
  }
  return undefined;
}
