/**
 * `agent-serve runner` on Node (docs/design/cloud-runtime.md): loads the same agent projects the
 * host serves, and runs their cloud turns in per-session workspaces under `workdir`, each
 * `cloud.repos` entry cloned there on the session's first turn. The turn itself is the core's
 * (src/features/cloud/runner-service.ts); this file holds what needs Node: the filesystem, `git`
 * and the listening socket.
 * @module
 */
import { execFile } from "node:child_process";
import { randomUUID } from "node:crypto";
import { access, mkdir, readdir, readFile, rm, stat, utimes, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { resolveCredentials } from "../loader/credentials.ts";
import { createLocalRuntime } from "../loader/runtime.ts";
import { createModelResolver } from "../src/engine/model/resolve.ts";
import { routeModelId } from "../src/engine/model/model-ids.ts";
import { parseDuration } from "../src/base/duration.ts";
import { errorMessage } from "../src/base/errors.ts";
import type { CloudRepo, TurnRequest } from "../src/features/cloud/protocol.ts";
import { type RunnerService, createRunnerService } from "../src/features/cloud/runner-service.ts";
import type { RunnerTurnDeps } from "../src/features/cloud/runner-turn.ts";
import type { RunnerWorkspaces } from "../src/features/cloud/runner-workspaces.ts";
import { loadProjectWith } from "./_project.ts";
import type { LoadedProjects, ProjectRuntime } from "./_project.ts";
import { serveWith } from "./_serve.ts";
import type { RunningServer } from "./_serve.ts";

const run = promisify(execFile);

export interface RunnerOptions {
  /** The project directory, as the host serves it. */
  dir: string;
  /** @default "multi" */
  mode?: "multi" | "single";
  /** The secret the host signs turn requests with. */
  secret: string;
  /** Where session workspaces live. */
  workdir: string;
  port?: number;
  /** @default "127.0.0.1" */
  hostname?: string;
  /** The runner's URL as hosts reach it (for the conversation URL of `agent.bound`). @default the listening URL */
  publicUrl?: string;
  apiKey?: string;
  env: Record<string, string | undefined>;
  /** @default 2000 */
  beatMs?: number;
  /** A session workspace no turn used for this long is removed; 0 keeps them (`--workspace-idle`). @default 7 days */
  workspaceIdleMs?: number;
  log: (line: string) => void;
}

export interface StartedRunner {
  url: string;
  loaded: LoadedProjects;
  service: RunnerService;
  close(): Promise<void>;
}

export async function startRunner(options: RunnerOptions, runtime: ProjectRuntime): Promise<StartedRunner> {
  const loaded = await loadProjectWith(runtime, resolve(options.dir), { mode: options.mode ?? "multi" });
  if (loaded.errors > 0) throw new Error(`not starting: ${loaded.errors} error(s) in the project (agent-serve validate lists them)`);
  const provider = loaded.projects
    .map(({ project }) => (typeof project.agent.model === "string" ? project.agent.model : project.agent.model?.id))
    .map((id) => (typeof id === "string" ? routeModelId(id.trim())?.provider : undefined))
    .find(Boolean);
  const credentials = resolveCredentials({ apiKey: options.apiKey, provider, env: options.env });
  const models = createModelResolver({ credentials, openaiCompatibleBaseURL: options.env.AGENT_SERVE_OPENAI_BASE_URL || undefined });
  const agents: Record<string, RunnerTurnDeps> = {};
  for (const { slug, project } of loaded.projects) {
    const root = join(resolve(options.workdir), slug);
    const local = createLocalRuntime({ stateRoot: root, env: options.env });
    agents[slug] = {
      project,
      runtime: local,
      models,
      ownEnv: options.env,
      async sessionWorkspace(request, env, signal) {
        const dir = await local.sessionWorkspace(request.sessionId);
        await touch(dir);
        await checkOut(dir, request, env, signal);
        return dir;
      },
      workspaces: workspacesUnder(join(root, "workspaces")),
    };
  }
  let url = "";
  const service = createRunnerService({
    agents,
    secret: options.secret,
    runnerId: `runner_${randomUUID().slice(0, 8)}`,
    baseUrl: () => options.publicUrl ?? url,
    log: options.log,
    ...(options.beatMs === undefined ? {} : { beatMs: options.beatMs }),
    ...(options.workspaceIdleMs === undefined ? {} : { workspaceIdleMs: options.workspaceIdleMs }),
  });
  const server: RunningServer = await serveWith(runtime.serve, { fetch: (request) => service.fetch(request) }, {
    ...(options.port === undefined ? {} : { port: options.port, portExplicit: true }),
    hostname: options.hostname ?? "127.0.0.1",
    silent: true,
  });
  url = server.url;
  return {
    url,
    loaded,
    service,
    async close() {
      service.close();
      await server.close(true);
    },
  };
}

/** `--workspace-idle`: a duration (`7d`, `12h`), `0` for never; undefined when it is neither. */
export function parseWorkspaceIdle(text: string): number | undefined {
  return text.trim() === "0" ? 0 : parseDuration(text);
}

// --- internals ---

/** Marker whose modification time is the workspace's last turn. */
const LAST_TURN = ".agent-serve/last-turn";

async function touch(dir: string): Promise<void> {
  const marker = join(dir, LAST_TURN);
  await mkdir(join(dir, ".agent-serve"), { recursive: true });
  const now = new Date();
  await utimes(marker, now, now).catch(() => writeFile(marker, ""));
}

/** The session workspaces under `dir` (`<workdir>/<agent>/workspaces`), one folder per session. */
function workspacesUnder(dir: string): RunnerWorkspaces {
  return {
    async list() {
      const names = await readdir(dir).catch(() => [] as string[]);
      const out: Array<{ sessionId: string; usedAt: number }> = [];
      for (const sessionId of names) {
        if (!/^[A-Za-z0-9_-]+$/.test(sessionId)) continue;
        // A workspace made before the marker existed counts from its folder's last change.
        const used = await stat(join(dir, sessionId, LAST_TURN)).catch(() => stat(join(dir, sessionId)).catch(() => undefined));
        if (used) out.push({ sessionId, usedAt: used.mtimeMs });
      }
      return out;
    },
    async remove(sessionId) {
      if (!/^[A-Za-z0-9_-]+$/.test(sessionId)) return;
      await rm(join(dir, sessionId), { recursive: true, force: true });
    },
  };
}

/** Marker of the repositories a workspace has checked out. */
const CHECKED_OUT = ".agent-serve/cloud-repos.json";

/** Clones each repository the session's cloud block names and the workspace lacks, at its `startingRef`. */
async function checkOut(dir: string, request: TurnRequest, env: Record<string, string>, signal: AbortSignal): Promise<void> {
  const repos = request.cloud.repos ?? [];
  if (repos.length === 0) return;
  const marker = join(dir, CHECKED_OUT);
  const done = new Set<string>(await readFile(marker, "utf8").then((text) => JSON.parse(text) as string[], () => []));
  const names = new Set<string>();
  for (const repo of repos) {
    const name = repoName(repo, names);
    names.add(name);
    if (repo.startingRef?.startsWith("-")) throw new Error(`not a git ref: ${JSON.stringify(repo.startingRef)}`);
    const key = `${repo.url}#${repo.startingRef ?? ""}`;
    if (done.has(key)) continue;
    const target = join(dir, "repos", name);
    const exists = await access(target).then(() => true, () => false);
    const gitEnv = { ...process.env, ...env, GIT_TERMINAL_PROMPT: "0" };
    try {
      if (!exists) {
        await mkdir(join(dir, "repos"), { recursive: true });
        await run("git", ["clone", "--quiet", "--", repo.url, target], { env: gitEnv, signal });
      }
      if (repo.startingRef) await run("git", ["-C", target, "checkout", "--quiet", repo.startingRef], { env: gitEnv, signal });
    } catch (error) {
      throw new Error(`cannot check out ${repo.url}${repo.startingRef ? ` at ${repo.startingRef}` : ""}: ${gitMessage(error)}`);
    }
    done.add(key);
    await mkdir(join(dir, ".agent-serve"), { recursive: true });
    await writeFile(marker, JSON.stringify([...done]));
  }
}

/** The folder under `repos/` a repository goes to: its last path segment, numbered when taken. */
function repoName(repo: CloudRepo, taken: Set<string>): string {
  const base = (repo.url.replace(/\/+$/, "").split(/[/:]/).pop() ?? "repo").replace(/\.git$/, "").replace(/[^A-Za-z0-9._-]/g, "_") || "repo";
  let name = base;
  for (let n = 2; taken.has(name); n++) name = `${base}-${n}`;
  return name;
}

function gitMessage(error: unknown): string {
  const stderr = (error as { stderr?: unknown }).stderr;
  return typeof stderr === "string" && stderr.trim() ? stderr.trim().split("\n").pop()! : errorMessage(error);
}
