/**
 * Shared start-up of `serve`, `dev` and `run`: discover and load the projects, refuse on error
 * diagnostics, give each mount its store (sqlite by default), resolve model credentials and create the host.
 * @module
 */
import { join, resolve } from "node:path";
import { resolveCredentials } from "../loader/credentials.ts";
import type { CredentialProvider } from "../loader/credentials.ts";
import { discoverProjects } from "../loader/discover.ts";
import { createLocalRuntime } from "../loader/runtime.ts";
import type { DiscoveredProject } from "../loader/discover.ts";
import { createHost } from "../src/host.ts";
import type { Diagnostic } from "../src/project/types.ts";
import type { AgentHost, AgentMount, HostLogger } from "../src/types.ts";
import type { CliIo } from "./io.ts";
import { openStorage, parseStorageUrl } from "./storage-url.ts";

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
  /** `sqlite:<path>`, `memory:` or `redis://…`; else `AGENT_SERVE_STORAGE`, else `<state root>/state.db`. */
  storage?: string;
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
 * when any has severity `error` (SPEC: `serve` refuses to start when errors exist).
 */
export async function startHost(options: StartHostOptions, io: CliIo): Promise<StartedHost | undefined> {
  const mode = options.mode ?? "multi";
  // A bad storage URL is a usage error before anything is loaded.
  const storage = parseStorageUrl(options.storage ?? (io.env.AGENT_SERVE_STORAGE || undefined));
  // Rendered alongside project discovery; the host needs the pages only once it is created.
  const docs = options.docs === true ? import("../loader/docs-site.ts").then((m) => m.renderDocsSite()) : undefined;
  // A broken install without the page's files still serves every agent, with a warning.
  const playground =
    options.playground === false
      ? undefined
      : import("../loader/playground-site.ts")
          .then((m) => m.readPlaygroundSite())
          .catch((error: unknown) => {
            io.stderr.write(`[agent-serve] playground unavailable: ${error instanceof Error ? error.message : String(error)}\n`);
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
  const errors = all.filter(({ diagnostic }) => diagnostic.severity === "error").length;
  if (errors > 0) {
    io.stderr.write(`agent-serve: not starting: ${errors} error${errors === 1 ? "" : "s"} in the project\n`);
    return undefined;
  }
  const agents: AgentMount[] = discovery.projects.map(({ slug, dir, project }) => {
    const root = stateRootFor({ mode, slug, projectDir: dir, stateRoot: options.stateRoot, cwd: io.cwd });
    return {
      slug,
      project,
      storage: openStorage(storage, { stateRoot: root, mode, slug, cwd: io.cwd }),
      runtime: createLocalRuntime({ stateRoot: root }),
    };
  });
  const credentials = resolveCredentials({
    apiKey: options.apiKey,
    provider: apiKeyProvider(discovery.projects),
    env: io.env,
  });
  const host = createHost({
    agents,
    mode,
    dev: options.dev ?? false,
    auth: { bearerToken: options.bearerToken, allowAnonymous: options.allowAnonymous },
    models: { credentials, openaiCompatibleBaseURL: io.env.AGENT_SERVE_OPENAI_BASE_URL || undefined },
    logger: createCliLogger(io, options.infoTo ?? "stdout"),
    recoverOnStart: options.recover ?? true,
    playground: (await playground) ?? false,
    docs: docs ? await docs : false,
    schedules: options.schedules ?? true,
    controlPlane: options.controlPlane ?? true,
  });
  return { host, projects: discovery.projects, mode };
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
