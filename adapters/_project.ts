/**
 * The composition root shared by the Node, Bun and Deno adapters: loads the agent projects of a
 * directory and binds them to a host (a store and the local runtime per mount, model
 * credentials, the playground and docs pages), then serves it. The runtime supplies how project
 * files are imported and srvx's `serve`; see `docs/guide/embedding.md`.
 * @module
 */
import { join, resolve } from "node:path";
import type { OpenSqlite } from "../drivers/sqlite/index.ts";
import { resolveCredentials } from "../loader/credentials.ts";
import type { CredentialProvider } from "../loader/credentials.ts";
import { discoverProjects } from "../loader/discover.ts";
import type { DiscoveredProject } from "../loader/discover.ts";
import { setModuleImporter } from "../loader/import-module.ts";
import type { ModuleImporter } from "../loader/import-module.ts";
import { createLocalRuntime } from "../loader/runtime.ts";
import { createError, errorMessage } from "../src/base/errors.ts";
import { createHost } from "../src/host/host.ts";
import { routeModelId } from "../src/engine/model/model-ids.ts";
import type { Diagnostic } from "../src/base/definitions/project.ts";
import type { AgentHost, AgentMount, ClosingSignal, CloudRuntimeOptions } from "../src/host/types.ts";
import type { HostLogger, LogLevel } from "../src/base/logging.ts";
import { serveWith } from "./_serve.ts";
import { createJwtVerifier } from "../src/features/mcp/jwt-verifier.ts";
import { readPlaygroundSite, renderDocsSite } from "./_sites.ts";
import { type StorageChoice, type StoragePool, openStorage } from "./_storage.ts";
import type { RunningServer, ServeOptions, SrvxServe } from "./_serve.ts";

/** What differs between runtimes for the composition root. */
export interface ProjectRuntime {
  /** Imports a project's TypeScript files. */
  importModule: ModuleImporter;
  /** srvx's `serve` for the runtime. */
  serve: SrvxServe;
  /**
   * What this runtime does not offer that Node does, told to every project as an `info`
   * diagnostic (code `runtime_limits`, listed by `GET /v1/info`).
   */
  limits?: string;
  /** The runtime's SQLite binding for the sqlite store. @default `node:sqlite` */
  openSqlite?: OpenSqlite;
}

export interface LoadProjectOptions {
  /** Route layout: single mode serves exactly one project, unslugged. @default "multi" */
  mode?: "multi" | "single";
  /** Imports the project's files instead of the runtime's importer (e.g. a bundler's). */
  importModule?: ModuleImporter;
}

export interface LoadedProjects {
  mode: "multi" | "single";
  /** Every project found, each with its own diagnostics. */
  projects: DiscoveredProject[];
  /** Every diagnostic, of the directory and of each project (`where` is the slug, or ""). */
  diagnostics: Array<{ diagnostic: Diagnostic; where: string }>;
  /** How many diagnostics have severity `error`; a host refuses to start over any. */
  errors: number;
}

export interface ProjectHostOptions {
  /** @default false */
  dev?: boolean;
  /** An API key for the provider of the first agent that names one. */
  apiKey?: string;
  /** @default `<project>/.agent-serve` (single) or `<project>/.agent-serve/<slug>` (multi) */
  stateRoot?: string;
  /**
   * Each mount's store: `{kind: "sqlite", path}` (an explicit file; in multi mode one per slug
   * beside it) or `{kind: "memory"}` (docs/guide/cli.md, `--storage`).
   * @default `<state root>/state.db` (sqlite)
   */
  storage?: StorageChoice;
  /** Relative `stateRoot`s resolve against this. @default process.cwd() */
  cwd?: string;
  /** Model credentials and `AGENT_SERVE_OPENAI_BASE_URL` come from here. @default process.env */
  env?: Record<string, string | undefined>;
  bearerToken?: string;
  allowAnonymous?: boolean;
  /**
   * Bearer tokens that are JWTs from an OAuth authorization server (`serve --oauth-issuer`): each
   * is verified against the issuer's keys, and the MCP endpoints publish protected-resource
   * metadata naming it (docs/guide/mcp.md "Authorization").
   */
  oauth?: OAuthServeOptions;
  /** Recover turns a crash interrupted. @default true */
  recover?: boolean;
  /** The playground SPA and the `/` index. @default true */
  playground?: boolean;
  /** The `/docs` site, rendered from the package's Markdown. @default false */
  docs?: boolean;
  /** The cron runner outside dev. @default true */
  schedules?: boolean;
  /** Built-in clocks; false mounts the internal fire routes instead. @default true */
  controlPlane?: boolean;
  /** @default console, with an `[agent-serve]` prefix */
  logger?: HostLogger;
  /** Lines below this level are dropped, from the logger and `GET /v1/logs` alike. @default "info" */
  logLevel?: LogLevel;
  /**
   * What outlives this host when hosts are created in turn over the same state (the `dev` loop,
   * docs/design/dev-reload.md): each mount's store comes from `storages` (and is closed by its
   * owner, not by the host), and live streams end when `closing` fires rather than at `close()`.
   */
  carryOver?: { storages: StoragePool; closing: ClosingSignal };
  /**
   * How long a session's turn lease outlives a crashed process (docs/design/processes.md).
   * @default `AGENT_SERVE_LEASE_TTL_MS`, else 30000
   */
  leaseTtlMs?: number;
  /** The cloud runners and how they reach this host (docs/guide/cloud-runtime.md). */
  cloud?: CloudRuntimeOptions;
}

export interface ServeProjectOptions extends LoadProjectOptions, ProjectHostOptions, ServeOptions {}

export interface ServedProject {
  host: AgentHost;
  server: RunningServer;
  projects: DiscoveredProject[];
  /** Stops the host (draining turns), then the server. */
  close(): Promise<void>;
}

/** Discovers and loads every agent project under `dir`, importing files the runtime's way. */
export async function loadProjectWith(runtime: ProjectRuntime, dir: string, options: LoadProjectOptions = {}): Promise<LoadedProjects> {
  const mode = options.mode ?? "multi";
  setModuleImporter(options.importModule ?? runtime.importModule);
  const discovery = await discoverProjects(resolve(dir), { mode });
  if (runtime.limits) {
    for (const { project } of discovery.projects) project.diagnostics.push({ severity: "info", code: "runtime_limits", message: runtime.limits });
  }
  const diagnostics = [
    ...discovery.diagnostics.map((diagnostic) => ({ diagnostic, where: "" })),
    ...discovery.projects.flatMap(({ slug, project }) => project.diagnostics.map((diagnostic) => ({ diagnostic, where: slug }))),
  ];
  const errors = diagnostics.filter(({ diagnostic }) => diagnostic.severity === "error").length;
  return { mode, projects: discovery.projects, diagnostics, errors };
}

/**
 * Binds loaded projects to a host: a store (sqlite by default, through `runtime`'s binding) and
 * the local runtime per mount.
 */
export async function createProjectHost(loaded: LoadedProjects, options: ProjectHostOptions = {}, runtime?: ProjectRuntime): Promise<AgentHost> {
  if (loaded.errors > 0) {
    const lines = loaded.diagnostics.filter(({ diagnostic }) => diagnostic.severity === "error").map(({ diagnostic, where }) => formatDiagnostic(diagnostic, where));
    throw createError("project", `not starting: ${loaded.errors} error${loaded.errors === 1 ? "" : "s"} in the project\n${lines.join("\n")}`);
  }
  const { mode } = loaded;
  const cwd = options.cwd ?? process.cwd();
  const env = options.env ?? process.env;
  const logger = options.logger ?? consoleLogger;
  const docs = options.docs === true ? renderDocsSite() : undefined;
  // A broken install without the page's files still serves every agent, with a warning.
  const playground =
    options.playground === false
      ? undefined
      : readPlaygroundSite().catch((error: unknown) => {
          logger.warn(`playground unavailable: ${errorMessage(error)}`);
          return true as const;
        });
  const agents: AgentMount[] = loaded.projects.map(({ slug, dir, project }) => {
    const root = stateRootFor({ mode, slug, projectDir: dir, stateRoot: options.stateRoot, cwd });
    const open = () =>
      openStorage(options.storage ?? { kind: "sqlite" }, {
        stateRoot: root,
        mode,
        slug,
        cwd,
        ...(runtime?.openSqlite ? { open: runtime.openSqlite } : {}),
      });
    const storage = options.carryOver ? options.carryOver.storages.lend(`${mode}\0${slug}\0${root}`, open) : open();
    return { slug, project, storage, runtime: createLocalRuntime({ stateRoot: root }) };
  });
  const credentials = resolveCredentials({ apiKey: options.apiKey, provider: apiKeyProvider(loaded.projects), env });
  // OpenTelemetry export when the standard OTEL_* environment asks for it; a no-op otherwise.
  // The SDK is loaded only then, so start-up without it stays as fast as before.
  const telemetry = Object.keys(env).some((name) => name.startsWith("OTEL_EXPORTER_OTLP_") && name.endsWith("ENDPOINT"))
    ? (await import("../loader/telemetry.ts")).startTelemetry(env)
    : undefined;
  const host = createHost({
    agents,
    mode,
    dev: options.dev ?? false,
    auth: { bearerToken: options.bearerToken, allowAnonymous: options.allowAnonymous, ...(options.oauth ? { oauth: oauthAuth(options.oauth) } : {}) },
    models: { credentials, openaiCompatibleBaseURL: env.AGENT_SERVE_OPENAI_BASE_URL || undefined },
    logger,
    ...(options.logLevel ? { logLevel: options.logLevel } : {}),
    recoverOnStart: options.recover ?? true,
    ...(options.carryOver ? { closing: options.carryOver.closing } : {}),
    ...leaseTtl(options.leaseTtlMs, env.AGENT_SERVE_LEASE_TTL_MS),
    playground: (await playground) ?? false,
    docs: docs ? await docs : false,
    schedules: options.schedules ?? true,
    controlPlane: options.controlPlane ?? true,
    ...(options.cloud ? { cloud: options.cloud } : {}),
  });
  if (telemetry) {
    const close = host.close.bind(host);
    host.close = async () => {
      await close();
      await telemetry.shutdown();
    };
  }
  return host;
}

/** Loads `dir`, creates the host, recovers crashed turns and listens. */
export async function serveProjectWith(runtime: ProjectRuntime, dir: string, options: ServeProjectOptions = {}): Promise<ServedProject> {
  const loaded = await loadProjectWith(runtime, dir, options);
  const host = await createProjectHost(loaded, options, runtime);
  let server: RunningServer;
  try {
    await host.ready();
    server = await serveWith(runtime.serve, host, options);
  } catch (error) {
    await host.close();
    throw error;
  }
  return {
    host,
    server,
    projects: loaded.projects,
    close: async () => {
      await host.close();
      await server.close(true);
    },
  };
}

/**
 * State root of one mount (docs/guide/cli.md, "serve"): an explicit root R is R in single mode and
 * R/<slug> in multi mode; the default lives in the project folder.
 */
export function stateRootFor(input: { mode: "multi" | "single"; slug: string; projectDir: string; stateRoot?: string; cwd: string }): string {
  const base = input.stateRoot === undefined ? join(input.projectDir, ".agent-serve") : resolve(input.cwd, input.stateRoot);
  return input.mode === "single" ? base : join(base, input.slug);
}

export function formatDiagnostic(diagnostic: Diagnostic, where: string): string {
  const place = [where, diagnostic.file].filter(Boolean).join(": ");
  return `${diagnostic.severity} [${diagnostic.code}]${place ? ` ${place}:` : ""} ${diagnostic.message}`;
}

// --- internals ---

/** `apiKey` belongs to the provider of the first agent that names one. */
function apiKeyProvider(projects: DiscoveredProject[]): CredentialProvider | undefined {
  for (const { project } of projects) {
    const model = project.agent.model;
    const id = typeof model === "string" ? model : model?.id;
    const provider = typeof id === "string" ? routeModelId(id.trim())?.provider : undefined;
    if (provider) return provider;
  }
  return undefined;
}

const consoleLogger: HostLogger = {
  info: (message) => console.log(`[agent-serve] ${message}`),
  warn: (message) => console.warn(`[agent-serve] ${message}`),
  error: (message, cause) => console.error(`[agent-serve] ${message}`, cause ?? ""),
};

/** The lease ttl from the option, else from the environment; a malformed value is refused. */
function leaseTtl(option: number | undefined, fromEnv: string | undefined): { leaseTtlMs?: number } {
  const value = option ?? (fromEnv === undefined || fromEnv === "" ? undefined : Number(fromEnv));
  if (value === undefined) return {};
  if (!Number.isInteger(value) || value < 100) throw createError("project", `the turn lease ttl must be a whole number of milliseconds, at least 100 (got ${String(option ?? fromEnv)})`);
  return { leaseTtlMs: value };
}

/** What `serve`'s `--oauth-*` flags say (docs/design/mcp-oauth-flags.md). */
export interface OAuthServeOptions {
  issuer: string;
  audience: string;
  jwksUrl?: string;
  scopes?: string[];
}

function oauthAuth(options: OAuthServeOptions): NonNullable<NonNullable<Parameters<typeof createHost>[0]["auth"]>["oauth"]> {
  return {
    verifier: createJwtVerifier({ issuer: options.issuer, audience: options.audience, ...(options.jwksUrl ? { jwksUrl: options.jwksUrl } : {}) }),
    authorizationServers: [options.issuer],
    ...(options.scopes?.length ? { scopesSupported: options.scopes } : {}),
  };
}
