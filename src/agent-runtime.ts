/**
 * Everything one mounted agent needs at run time: its storage-backed session machinery, its
 * model, its tools, artifacts and hooks, and its auth chain. The HTTP layer only talks to this.
 * @module
 */
import { ApprovalRegistry } from "./approvals/registry.ts";
import { ArtifactStore } from "./artifacts/store.ts";
import { tagArtifactTool } from "./artifacts/tag-tool.ts";
import { createHookDispatcher } from "./hooks/dispatch.ts";
import { defaultPolicies } from "./http/auth-chain.ts";
import type { AuthPolicy } from "./http/auth-types.ts";
import { createModelResolver, defaultModelId, normalizeModelSpec } from "./model/resolve.ts";
import type { LanguageModelPort, ModelResolver, ModelSpec } from "./model/types.ts";
import type { ProjectDefinition } from "./project/types.ts";
import type { RuntimePort } from "./runtime/types.ts";
import { EventLog } from "./sessions/event-log.ts";
import { recoverSessions } from "./sessions/recovery.ts";
import { SessionService } from "./sessions/session-service.ts";
import { SessionStore } from "./sessions/session-store.ts";
import { TurnController } from "./sessions/turn-controller.ts";
import { TurnSlots } from "./sessions/turn-slots.ts";
import { createMemoryStorage } from "./storage/memory.ts";
import type { StorageDriver } from "./storage/types.ts";
import { ConversationLog } from "./turns/conversation.ts";
import type { ToolContextServices } from "./turns/tool-context.ts";
import type { TurnRunner } from "./turns/turn-runner.ts";
import { type BuiltinTool, type TurnToolsOptions, createTurnTools, toolSpecs } from "./turns/turn-tools.ts";
import type { AgentHostOptions, AgentMount, HostLogger } from "./types.ts";

/** The most model steps one turn may take before it fails. */
const MAX_STEPS = 50;
/** Longest an agent-execution tool script may run. */
const SCRIPT_TIMEOUT_MS = 120_000;

export interface AgentRuntime {
  slug: string;
  project: ProjectDefinition;
  /** `/<slug>` in multi mode, `` in single mode. */
  basePath: string;
  storage: StorageDriver;
  runtime: RuntimePort | undefined;
  log: EventLog;
  sessions: SessionService;
  controller: TurnController;
  approvals: ApprovalRegistry;
  artifacts: ArtifactStore;
  toolServices: ToolContextServices;
  policies: AuthPolicy[];
  model: { spec: ModelSpec; notice?: string };
  recover(): Promise<void>;
}

export function createAgentRuntime(
  mount: AgentMount,
  options: AgentHostOptions,
  context: { logger: HostLogger; now: () => number; mode: "multi" | "single" },
): AgentRuntime {
  const { project } = mount;
  const { logger, now } = context;
  const storage = mount.storage ?? createMemoryStorage();
  const log = new EventLog(storage, now);
  const store = new SessionStore(storage, now);
  const conversation = new ConversationLog(storage);
  const approvals = new ApprovalRegistry();
  const artifacts = new ArtifactStore({ storage, ...(project.artifacts ? { definition: project.artifacts } : {}), log, now, logger });
  const toolServices: ToolContextServices = {
    send: (channelId, message, sendOptions) => sessions.send(channelId, message, sendOptions),
    find: (sessionId) => sessions.find(sessionId),
    artifacts: (bound) => artifacts.facade(bound),
    runtime: mount.runtime,
  };
  const tools: TurnToolsOptions = {
    tools: project.tools ?? {},
    builtins: builtinTools(project, artifacts),
    approvals,
    services: toolServices,
    runtime: mount.runtime,
    scriptTimeoutMs: SCRIPT_TIMEOUT_MS,
    now,
  };
  const model = chooseModel(project, options);
  const runner = createRunner(project, model.spec, options.models?.resolve ?? createModelResolver(options.models), tools);
  const controller = new TurnController({
    log,
    store,
    conversation,
    slots: new TurnSlots(project.agent.concurrency?.maxRunningTurns),
    runner,
    logger,
  });
  const sessions = new SessionService({ store, log, controller, now });
  const dispatch = createHookDispatcher({
    hooks: project.hooks ?? {},
    record: (sessionId) => store.get(sessionId),
    artifacts: (bound) => artifacts.facade(bound),
    logger,
  });
  if (dispatch) log.onEvent(dispatch);
  return {
    slug: mount.slug,
    project,
    basePath: context.mode === "multi" ? `/${mount.slug}` : "",
    storage,
    runtime: mount.runtime,
    log,
    sessions,
    controller,
    approvals,
    artifacts,
    toolServices,
    policies: defaultPolicies(options.auth),
    model,
    async recover() {
      await recoverSessions({ store, log, logger });
    },
  };
}

// --- internals ---

function chooseModel(project: ProjectDefinition, options: AgentHostOptions): { spec: ModelSpec; notice?: string } {
  const configured = normalizeModelSpec(project.agent.model);
  if (configured) return { spec: configured };
  if (options.models?.defaultModel) return { spec: { id: options.models.defaultModel, params: {} } };
  const fallback = defaultModelId(options.models?.credentials);
  return { spec: { id: fallback.id, params: {} }, ...(fallback.notice ? { notice: fallback.notice } : {}) };
}

/** Built-in model-facing tools; an authored tool of the same name wins (the loader warns). */
function builtinTools(project: ProjectDefinition, artifacts: ArtifactStore): BuiltinTool[] {
  const builtins: BuiltinTool[] = [];
  const tag = project.artifacts ? tagArtifactTool(project.artifacts) : undefined;
  if (tag) {
    builtins.push({
      spec: tag.spec,
      async execute(input, scope) {
        try {
          const record = await tag.execute(input, { source: "model", ...scope }, artifacts);
          return { output: { id: record.id, kind: record.kind, key: record.key, title: record.title }, isError: false };
        } catch (error) {
          return { output: error instanceof Error ? error.message : String(error), isError: true };
        }
      },
    });
  }
  return builtins;
}

function createRunner(project: ProjectDefinition, spec: ModelSpec, resolve: ModelResolver, tools: TurnToolsOptions): TurnRunner {
  let resolved: LanguageModelPort | { error: string } | undefined;
  const specs = toolSpecs(tools);
  return {
    prepare(record, turn) {
      // Resolved on first use so a missing credential fails turns with a clear message instead of
      // failing start-up; the result is reused for every later turn.
      if (!resolved) {
        try {
          resolved = resolve(spec);
        } catch (error) {
          resolved = { error: error instanceof Error ? error.message : String(error) };
        }
      }
      return {
        system: project.instructions,
        params: spec.params,
        model: resolved,
        tools: createTurnTools(tools, specs, { record, turnId: turn.turnId, emit: turn.emit }),
        maxSteps: MAX_STEPS,
      };
    },
  };
}
