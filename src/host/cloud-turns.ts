/**
 * The turns of a cloud-runtime agent, and of a session sent with a per-send `cloud`, dispatched
 * to a runner (docs/design/cloud-runtime.md): the turn is prepared as a local one (its A/B
 * variant, its tool executor), then run by the remote loop, whose events go through the same
 * writer. The host's server tools are offered to the runner through `/v1/mcp/tools` when this
 * host knows where runners reach it.
 * @module
 */
import type { ProjectDefinition } from "../base/definitions/project.ts";
import type { SessionRecord } from "../base/definitions/sessions.ts";
import type { ModelSpec } from "../base/ports/model.ts";
import type { CloudTurnRegistry } from "../features/cloud/cloud-tools.ts";
import type { CloudBlock } from "../features/cloud/protocol.ts";
import { RUNNER_PROTOCOL } from "../features/cloud/protocol.ts";
import { type CloudTurnState, remoteLoop } from "../features/cloud/remote-turn.ts";
import { cloudTurnKey } from "../base/storage/keys.ts";
import type { StorageDriver } from "../base/storage/types.ts";
import type { RunnerPool } from "../features/cloud/runner-pool.ts";
import { turnVariant } from "../engine/experiments/variant.ts";
import type { PendingWorkspaceFiles } from "../engine/harness/pending-files.ts";
import type { TurnRunner } from "../engine/turns/turn-runner.ts";
import type { CloudRuntimeOptions } from "./types.ts";
import type { HostLogger } from "../base/logging.ts";
import { runnerSessions } from "../features/cloud/runner-sessions.ts";

/** Why a cloud session's turn fails on a host started without runners. */
export const NO_RUNNERS =
  "this session runs on the cloud runtime, and this host has no cloud runner: start agent-serve runner and serve with --runner <url> and --runner-secret (docs/guide/cloud-runtime.md)";

/** Why a hybrid agent with a `tools` allowlist may not send a session to the cloud. */
export const CLOUD_ALLOWLIST_REFUSAL =
  "this agent sets tools (a harness allowlist), which works only with the local runtime: drop cloud from this send, or remove tools from the agent to send sessions to the cloud";

export interface CloudTurnsParts {
  slug: string;
  project: ProjectDefinition;
  basePath: string;
  cloud: CloudRuntimeOptions | undefined;
  pool: RunnerPool | undefined;
  registry: CloudTurnRegistry;
  /** The model the agent names, before any local fallback: the runner resolves it. */
  model: ModelSpec;
  pendingFiles?: PendingWorkspaceFiles;
  /** Where a cloud turn's runner and last committed line are kept (a restart reattaches from it). */
  storage: Pick<StorageDriver, "get">;
  /** A runner took a turn: its id tells a restarted runner (`cloudWorkspaces`'s `bound`). */
  onRunnerBound?: (runner: string, runnerId: string) => void;
}

/** Whether the session's turns run on the cloud runtime. */
export function isCloudSession(project: ProjectDefinition, record: Pick<SessionRecord, "cloud">): boolean {
  return project.agent.runtime === "cloud" || record.cloud !== undefined;
}

/**
 * `local` runs the turns of local sessions (the harness); `base` prepares a cloud turn's variant
 * and tool executor, which the runner reaches for the host's tools.
 */
export function withCloudTurns(local: TurnRunner, base: TurnRunner, parts: CloudTurnsParts): TurnRunner {
  const { project, cloud, pool } = parts;
  const toolsUrl = cloud?.toolsUrl ?? (cloud?.publicUrl ? `${cloud.publicUrl.replace(/\/+$/, "")}${parts.basePath}/v1/mcp/tools` : undefined);
  const agentTools = Object.entries(project.tools ?? {}).filter(([, def]) => def.execution === "agent");
  const agentToolNames = new Set(agentTools.map(([name]) => name));
  const catalog = agentTools.length === 0 ? "" : ["Agent tools (they run in your workspace):", ...agentTools.map(([name, def]) => `- ${name}: ${def.description}`)].join("\n");

  return {
    async prepare(record, turn) {
      if (!isCloudSession(project, record)) return local.prepare(record, turn);
      const setup = await base.prepare(record, turn);
      if (project.agent.tools !== undefined) return { ...setup, model: { error: CLOUD_ALLOWLIST_REFUSAL } };
      if (!cloud || !pool || pool.size === 0) return { ...setup, model: { error: NO_RUNNERS } };
      const files = (await parts.pendingFiles?.take(record.sessionId)) ?? {};
      const spec = turnVariant({ spec: parts.model, system: project.instructions }, project.agent.experiments ?? [], record.ab).spec;
      let written = 0;
      const waiting: Array<{ seq: number; resolve: () => void }> = [];
      const onWritten = (seq: number): void => {
        written = Math.max(written, seq);
        for (const waiter of waiting.filter((w) => w.seq <= written)) {
          waiting.splice(waiting.indexOf(waiter), 1);
          waiter.resolve();
        }
      };
      const specs = setup.tools.specs.filter((one) => !agentToolNames.has(one.name));
      const run = async (input: Parameters<NonNullable<typeof setup.remote>>[0]) => {
        const registered =
          toolsUrl && specs.length > 0
            ? await parts.registry.register(
                { sessionId: record.sessionId, turnId: turn.turnId, agent: parts.slug },
                {
                  executor: setup.tools,
                  specs,
                  signal: turn.signal,
                  written: (seq) => (seq <= written ? Promise.resolve() : new Promise<void>((resolve) => waiting.push({ seq, resolve }))),
                },
              )
            : undefined;
        try {
          return await remoteLoop({
            pool,
            state: {
              read: async () => {
                const raw = await parts.storage.get(cloudTurnKey(record.sessionId));
                return raw === undefined ? undefined : (JSON.parse(raw) as CloudTurnState);
              },
              write: (state) => ({ key: cloudTurnKey(record.sessionId), value: JSON.stringify(state) }),
            },
            secret: cloud.secret,
            leaseMs: cloud.leaseMs ?? 10_000,
            model: { id: spec.id, params: input.params },
            onWritten,
            ...(parts.onRunnerBound ? { onBound: parts.onRunnerBound } : {}),
            request: {
              protocol: RUNNER_PROTOCOL,
              sessionId: record.sessionId,
              turnId: turn.turnId,
              agent: parts.slug,
              project: { name: project.name },
              prompt: { instructions: input.system, agentTools: catalog },
              cloud: cloudBlock(project, record),
              ...(Object.keys(files).length > 0 ? { files } : {}),
              ...(registered && toolsUrl ? { tools: { url: toolsUrl, credential: registered.credential, specs } } : {}),
            },
          })(input);
        } finally {
          registered?.revoke();
          for (const waiter of waiting.splice(0)) waiter.resolve();
        }
      };
      return { ...setup, remote: run };
    },
  };
}

/** The agent's cloud block with the session's per-send attachment over it. */
export function cloudBlock(project: ProjectDefinition, record: Pick<SessionRecord, "cloud">): CloudBlock {
  const agent = (project.agent.cloud ?? {}) as CloudBlock;
  const send = (record.cloud ?? {}) as CloudBlock;
  const envVars =
    Array.isArray(agent.envVars) || Array.isArray(send.envVars) ? (send.envVars ?? agent.envVars) : { ...agent.envVars, ...send.envVars };
  return {
    ...((send.repos ?? agent.repos) ? { repos: send.repos ?? agent.repos } : {}),
    env: { ...agent.env, ...send.env },
    ...(envVars === undefined ? {} : { envVars }),
  };
}

/**
 * What `serve` says at start-up about a cloud agent it cannot serve fully: no runner to run its
 * turns, or server tools its turns cannot reach (docs/guide/agent-projects.md "Agent
 * configuration": omitted with a start-up warning).
 */
export function cloudStartupWarnings(slug: string, project: ProjectDefinition, cloud: CloudRuntimeOptions | undefined): string[] {
  if (project.agent.runtime !== "cloud") return [];
  const warnings: string[] = [];
  if (!cloud || cloud.runners.length === 0) warnings.push(`${slug}: runtime "cloud" and no cloud runner: its turns fail until the host is served with --runner <url> and --runner-secret`);
  const serverTools = Object.entries(project.tools ?? {}).filter(([, def]) => def.execution !== "agent").map(([name]) => name).sort();
  if (serverTools.length > 0 && !cloud?.publicUrl && !cloud?.toolsUrl) {
    warnings.push(`${slug}: server tools (${serverTools.join(", ")}) are omitted from its cloud turns: pass --public-url or --cloud-tools-url so runners can reach them`);
  }
  return warnings;
}

export interface CloudWorkspaces {
  /** A session was deleted: every runner removes its workspace (not waited for). */
  removed(sessionId: string): void;
  /** At start: every runner drops the workspaces of sessions the store no longer has. */
  reconcile(): Promise<void>;
  /** A runner took a turn; a new id for its URL means it restarted, and it is reconciled. */
  bound(runner: string, runnerId: string): void;
}

/**
 * Runner workspace clean-up for one agent (docs/design/cloud-workspaces.md), when this host has
 * runners. A delete never waits for the runners, so it never fails because one is down; the
 * reconciles at the host's start and at a runner's restart catch up on what a runner missed.
 */
export function cloudWorkspaces(slug: string, cloud: CloudRuntimeOptions | undefined, exists: (sessionId: string) => Promise<boolean>, logger: HostLogger): CloudWorkspaces | undefined {
  if (!cloud || cloud.runners.length === 0) return undefined;
  const runners = runnerSessions({ runners: cloud.runners, secret: cloud.secret, agent: slug, logger });
  const seen = new Map<string, string>();
  const reconcile = async (only?: string): Promise<void> => {
    const removed = await runners.reconcile(exists, only);
    if (removed.length > 0) logger.info(`[cloud] removed ${removed.length} runner workspace(s) of deleted sessions of ${slug}`);
  };
  const failed = (error: unknown): void => logger.error("runner workspace clean-up failed", error);
  return {
    removed: (sessionId) => void runners.forget(sessionId),
    reconcile: () => reconcile(),
    bound(runner, runnerId) {
      const before = seen.get(runner);
      seen.set(runner, runnerId);
      if (before !== undefined && before !== runnerId) void reconcile(runner).catch(failed);
    },
  };
}

