/**
 * Everything one mounted agent needs at run time: its storage-backed session machinery, its
 * model, and its auth chain. The HTTP layer only talks to this.
 * @module
 */
import { defaultPolicies } from "./http/auth-chain.ts";
import type { AuthPolicy } from "./http/auth-types.ts";
import { createModelResolver, defaultModelId, normalizeModelSpec } from "./model/resolve.ts";
import type { LanguageModelPort, ModelResolver, ModelSpec } from "./model/types.ts";
import type { ProjectDefinition } from "./project/types.ts";
import { createMemoryStorage } from "./storage/memory.ts";
import type { StorageDriver } from "./storage/types.ts";
import { EventLog } from "./sessions/event-log.ts";
import { recoverSessions } from "./sessions/recovery.ts";
import { SessionService } from "./sessions/session-service.ts";
import { SessionStore } from "./sessions/session-store.ts";
import { TurnController } from "./sessions/turn-controller.ts";
import { TurnSlots } from "./sessions/turn-slots.ts";
import { ConversationLog } from "./turns/conversation.ts";
import { noTools } from "./turns/tool-executor.ts";
import type { TurnRunner, TurnSetup } from "./turns/turn-runner.ts";
import type { AgentHostOptions, AgentMount, HostLogger } from "./types.ts";

/** The most model steps one turn may take before it fails. */
const MAX_STEPS = 50;

export interface AgentRuntime {
  slug: string;
  project: ProjectDefinition;
  /** `/<slug>` in multi mode, `` in single mode. */
  basePath: string;
  storage: StorageDriver;
  log: EventLog;
  sessions: SessionService;
  controller: TurnController;
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
  const model = chooseModel(project, options);
  const runner = createRunner(project, model.spec, options.models?.resolve ?? createModelResolver(options.models));
  const controller = new TurnController({
    log,
    store,
    conversation,
    slots: new TurnSlots(project.agent.concurrency?.maxRunningTurns),
    runner,
    logger,
  });
  const sessions = new SessionService({ store, log, controller, now });
  return {
    slug: mount.slug,
    project,
    basePath: context.mode === "multi" ? `/${mount.slug}` : "",
    storage,
    log,
    sessions,
    controller,
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

function createRunner(project: ProjectDefinition, spec: ModelSpec, resolve: ModelResolver): TurnRunner {
  let resolved: LanguageModelPort | { error: string } | undefined;
  const setup = (): TurnSetup => {
    // Resolved on first use so a missing credential fails turns with a clear message instead of
    // failing start-up; the result is reused for every later turn.
    if (!resolved) {
      try {
        resolved = resolve(spec);
      } catch (error) {
        resolved = { error: error instanceof Error ? error.message : String(error) };
      }
    }
    return { system: project.instructions, params: spec.params, model: resolved, tools: noTools, maxSteps: MAX_STEPS };
  };
  return { prepare: setup };
}
