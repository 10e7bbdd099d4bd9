/**
 * Where request-sending commands send their requests (docs/guide/cli.md):
 * an ephemeral local server over the project directory (no `--url`; same state root as `serve`,
 * so sessions persist between commands), a running server (`--url`, with `--bearer-token`), or
 * the deployed worker (`--prod`, see `prod-target.ts`).
 * @module
 */
import { createApiClient, isRecord } from "./api-client.ts";
import type { ApiClient } from "./api-client.ts";
import { CommandError, UsageError } from "./io.ts";
import type { CliIo } from "./io.ts";
import type { Progress } from "./progress.ts";
import { prodTarget } from "./prod-target.ts";
import { listenHost, startHost } from "./start-host.ts";

export interface TargetArgs {
  /** Base URL of a running server; in multi mode it includes the agent's slug. */
  url?: string;
  /** Reach the deployed worker of `dir` (URL and alias token from its deploy). */
  prod?: boolean;
  /** Sent as `Authorization: Bearer <token>` to a running server. */
  bearerToken?: string;
  /** Project directory of the ephemeral server, relative to `io.cwd`. @default "." */
  dir?: string;
  /** Agent to talk to when the directory holds several (ephemeral server only). */
  slug?: string;
  /** @default "multi" */
  mode?: "multi" | "single";
  /** @default as `serve`: `<project>/.agent-serve[/<slug>]` */
  stateRoot?: string;
  /** As `serve --storage`. */
  storage?: string;
  apiKey?: string;
}

export interface Target {
  client: ApiClient;
  /** The agent answering at `client.baseUrl`. */
  agent: { slug: string; name: string };
  /** `local` for an ephemeral server this process started. */
  kind: "local" | "remote";
  /** Stops the ephemeral server (a no-op for a running one). */
  close(): Promise<void>;
}

/** Opens the target the flags name; throws {@link CommandError} or {@link UsageError} when it cannot. */
export async function openTarget(args: TargetArgs, io: CliIo, progress: Progress): Promise<Target> {
  if (args.prod === true) {
    if (args.url !== undefined) throw new UsageError("--prod and --url exclude each other: --prod reaches the deployed worker");
    for (const [flag, value] of [["--state-root", args.stateRoot], ["--storage", args.storage], ["--api-key", args.apiKey]] as const) {
      if (value !== undefined) throw new UsageError(`${flag} applies to the local server only, not with --prod`);
    }
    const prod = prodTarget(args.dir, args.slug, io);
    return openRemote(prod.url, args.bearerToken, prod.headers);
  }
  if (args.url !== undefined) {
    for (const [flag, value] of [["--slug", args.slug], ["--state-root", args.stateRoot], ["--storage", args.storage], ["--api-key", args.apiKey]] as const) {
      if (value !== undefined) throw new UsageError(`${flag} applies to the local server only, not with --url`);
    }
    return openRemote(args.url, args.bearerToken);
  }
  if (args.bearerToken !== undefined) throw new UsageError("--bearer-token applies with --url or --prod only");
  return openLocal(args, io, progress);
}

/** Runs `body` against the target and always closes it. */
export async function withTarget<T>(args: TargetArgs, io: CliIo, progress: Progress, body: (target: Target) => Promise<T>): Promise<T> {
  const target = await openTarget(args, io, progress);
  try {
    return await body(target);
  } finally {
    await target.close();
  }
}

// --- internals ---

async function openRemote(url: string, bearerToken: string | undefined, headers: Record<string, string> = {}): Promise<Target> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new UsageError(`--url must be an absolute http(s) URL (got "${url}")`);
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    throw new UsageError(`--url must be an http(s) URL (got "${url}")`);
  }
  const client = createApiClient(url, bearerToken, headers);
  const response = await client.fetch("/v1/health");
  const body: unknown = await response.json().catch(() => undefined);
  if (!response.ok || !isRecord(body)) {
    // A stopped deployment says so in its body (docs/guide/cloudflare.md).
    if (isRecord(body) && body.error === "deployment_stopped" && typeof body.message === "string") throw new CommandError(`${client.baseUrl} answered ${response.status}: ${body.message}`);
    const hint = response.status === 401 ? " (pass --bearer-token)" : "";
    throw new CommandError(`${client.baseUrl} is not an agent-serve agent: GET /v1/health answered ${response.status}${hint}`);
  }
  if (typeof body.slug !== "string") {
    // The host-level health `{ok, agents}` of multi mode: the URL stops one segment short.
    const slugs = await agentSlugs(client);
    const example = slugs[0] ?? "<slug>";
    throw new CommandError(
      `${client.baseUrl} is a multi-agent server: the URL needs the agent's slug, e.g. ${client.baseUrl}/${example}` +
        (slugs.length > 0 ? ` (agents: ${slugs.join(", ")})` : ""),
    );
  }
  const agent = { slug: body.slug, name: typeof body.name === "string" ? body.name : body.slug };
  return { client, agent, kind: "remote", close: async () => {} };
}

async function agentSlugs(client: ApiClient): Promise<string[]> {
  try {
    const { agents } = await client.getJson<{ agents?: Array<{ slug?: unknown }> }>("/v1/agents");
    return (agents ?? []).flatMap((agent) => (typeof agent.slug === "string" ? [agent.slug] : []));
  } catch {
    return [];
  }
}

async function openLocal(args: TargetArgs, io: CliIo, progress: Progress): Promise<Target> {
  progress.start(`starting a local server for ${args.dir ?? "."}`);
  const started = await startHost({ dir: args.dir, mode: args.mode, stateRoot: args.stateRoot, storage: args.storage, apiKey: args.apiKey, infoTo: "none", recover: false, playground: false }, io);
  if (!started) {
    progress.stop();
    throw new CommandError("the project has errors (listed above)");
  }
  const { host, projects, mode } = started;
  const mount = args.slug === undefined ? projects[0] : projects.find((p) => p.slug === args.slug);
  if (!mount || (args.slug === undefined && projects.length > 1)) {
    progress.stop();
    await host.close();
    const slugs = projects.map((p) => p.slug).join(", ");
    throw new UsageError(args.slug === undefined ? `several agents are mounted (${slugs}): pass --slug` : `no agent "${args.slug}" (mounted: ${slugs})`);
  }
  try {
    // Recovery runs before the first request, as under `serve`.
    await host.ready();
    const server = await listenHost(host, { port: 0, hostname: "127.0.0.1", silent: true }, io);
    progress.done();
    const baseUrl = mode === "single" ? server.url : `${server.url}/${mount.slug}`;
    return {
      client: createApiClient(baseUrl),
      agent: { slug: mount.slug, name: mount.project.name },
      kind: "local",
      async close() {
        await host.close();
        await server.close(true);
      },
    };
  } catch (error) {
    progress.stop();
    await host.close();
    throw error;
  }
}
