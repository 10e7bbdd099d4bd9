/**
 * What an agent's tools and hooks reach (docs/design/tools.md): the runtime bound to the agent's
 * local options, artifacts, reminders and the one host-services object (`ctx.host`) that tools,
 * hooks, schedules, reminders and channels all get.
 * @module
 */
import { HTTPError, createError } from "../base/errors.ts";
import { CLOUD_ALLOWLIST_REFUSAL } from "./cloud-turns.ts";
import { cloudBlockProblems } from "../engine/harness/cloud-block.ts";
import type { HostLogger } from "../base/logging.ts";
import type { ProjectDefinition } from "../base/definitions/project.ts";
import type { ProjectFiles } from "../base/definitions/tools.ts";
import type { RuntimePort } from "../base/ports/runtime.ts";
import type { StorageDriver } from "../base/storage/types.ts";
import type { ApprovalStore } from "../engine/approvals/approval-store.ts";
import { bindRuntime } from "../engine/harness/bind-runtime.ts";
import { PendingWorkspaceFiles } from "../engine/harness/pending-files.ts";
import { createHostKv } from "../engine/kv/kv.ts";
import type { EventLog } from "../engine/sessions/event-log.ts";
import type { SessionEntry } from "../base/definitions/session-face.ts";
import type { SessionStore } from "../engine/sessions/session-store.ts";
import { createHostOtel } from "../engine/telemetry/host-otel.ts";
import type { ToolContextServices } from "../engine/turns/tool-context.ts";
import type { TurnToolsOptions } from "../engine/turns/turn-tools.ts";
import { ArtifactStore } from "../features/artifacts/store.ts";
import { createDeliveryClaims } from "../features/channels/packs/delivery-claims.ts";
import { ReminderService } from "../features/reminders/service.ts";
import { createExclusive } from "../base/storage/exclusive.ts";
import type { TimerPort } from "../base/ports/timers.ts";
import { builtinTools } from "./builtin-tools.ts";
import type { AgentMount } from "./types.ts";

/** Longest an agent-execution tool script may run. */
const SCRIPT_TIMEOUT_MS = 120_000;

export interface AgentTools {
  runtime: RuntimePort | undefined;
  pendingFiles?: PendingWorkspaceFiles;
  artifacts: ArtifactStore;
  reminders: ReminderService;
  toolServices: ToolContextServices;
  tools: TurnToolsOptions;
}

export function createAgentTools(
  mount: AgentMount,
  parts: { storage: StorageDriver; store: SessionStore; log: EventLog; approvals: ApprovalStore; entry: SessionEntry; now: () => number; logger: HostLogger; timers: TimerPort; owner: string },
): AgentTools {
  const { project } = mount;
  const { storage, store, log, now, logger } = parts;
  // The agent's local options bound into its runtime: every workspace lookup and script honours them.
  const runtime = bindRuntime(mount.runtime, project, async (sessionId) => (await store.get(sessionId))?.workspaceDir);
  const pendingFiles = runtime?.prepareWorkspace ? new PendingWorkspaceFiles(storage) : undefined;
  const artifacts = new ArtifactStore({ storage, ...(project.artifacts ? { definition: project.artifacts } : {}), log, now, logger });
  const reminders = new ReminderService({
    storage,
    exclusive: createExclusive(storage, parts.owner),
    sessions: parts.entry,
    store,
    timers: parts.timers,
    keyPrefix: mount.slug,
    now,
    logger,
    cancelTool: project.agent.builtinTools?.reminders === true,
    host: () => toolServices.host,
  });
  // Tools see the host's services as `ctx.host`.
  const toolServices: ToolContextServices = {
    // A tool's send with `cloud` is refused as a channel's is (./cloud-turns.ts).
    send: (channelId, message, options) => {
      if (options?.cloud !== undefined && project.agent.tools !== undefined) {
        return Promise.reject(new HTTPError({ status: 400, code: "cloud_send_refused", message: CLOUD_ALLOWLIST_REFUSAL }));
      }
      const problems = options?.cloud === undefined ? [] : cloudBlockProblems(options.cloud, "send's cloud");
      if (problems.length > 0) return Promise.reject(new HTTPError({ status: 400, code: "invalid_cloud", message: problems.join("; ") }));
      return parts.entry.send(channelId, message, options);
    },
    find: parts.entry.find,
    artifacts: (bound) => artifacts.facade(bound),
    runtime,
    // The one host-services object: tools, hooks, schedules, reminders and channels all get it.
    host: {
      reminders: reminders.facade,
      deliveries: createDeliveryClaims(storage),
      kv: createHostKv({ storage, now, ...(project.agent.kv ? { config: project.agent.kv } : {}) }),
      otel: createHostOtel(mount.slug),
      ...projectFiles(project, runtime),
    },
  };
  const tools: TurnToolsOptions = {
    tools: project.tools ?? {},
    builtins: builtinTools(project, { artifacts, reminders, store, logger }),
    approvals: parts.approvals,
    services: toolServices,
    runtime,
    scriptTimeoutMs: SCRIPT_TIMEOUT_MS,
    now,
  };
  return { runtime, ...(pendingFiles ? { pendingFiles } : {}), artifacts, reminders, toolServices, tools };
}

/** `host.projectFiles`: appends below the project root, where the runtime can write files. */
function projectFiles(project: ProjectDefinition, runtime: RuntimePort | undefined): { projectFiles?: ProjectFiles } {
  const root = project.root;
  const append = runtime?.appendFile?.bind(runtime);
  if (root === undefined || !append) return {};
  return {
    projectFiles: {
      async append(path, text) {
        const parts = path.split("/");
        if (path.startsWith("/") || parts.some((part) => part === "" || part === "." || part === "..") || path.includes("\\")) {
          throw createError("files", `not a project-relative path: ${JSON.stringify(path)}`);
        }
        await append(`${root.replace(/\/+$/, "")}/${path}`, text);
      },
    },
  };
}
