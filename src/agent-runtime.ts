/**
 * Everything one mounted agent needs at run time: its storage-backed session machinery, its
 * model, its tools, artifacts and hooks, and its auth chain. The HTTP layer only talks to this.
 * @module
 */
import { ApprovalRegistry } from "./approvals/registry.ts";
import { ArtifactStore } from "./artifacts/store.ts";
import { tagArtifactTool } from "./artifacts/tag-tool.ts";
import { EvalService } from "./evals/service.ts";
import { ExperimentService } from "./experiments/service.ts";
import { cachedModels, turnVariant } from "./experiments/variant.ts";
import { bindRuntime } from "./harness/bind-runtime.ts";
import { PendingWorkspaceFiles } from "./harness/pending-files.ts";
import { withHarness } from "./harness/runner.ts";
import { createHookDispatcher } from "./hooks/dispatch.ts";
import { defaultPolicies } from "./http/auth-chain.ts";
import type { AuthPolicy } from "./http/auth-types.ts";
import { createModelResolver, defaultModelId, normalizeModelSpec } from "./model/resolve.ts";
import type { ModelResolver, ModelSpec } from "./model/types.ts";
import type { ProjectDefinition } from "./project/types.ts";
import { ReminderService } from "./reminders/service.ts";
import { REMINDER_TOOLS, reminderTools } from "./reminders/tools.ts";
import type { RuntimePort } from "./runtime/types.ts";
import { dispatchSchedule } from "./schedules/dispatch.ts";
import { ScheduleRunner } from "./schedules/runner.ts";
import { EventLog } from "./sessions/event-log.ts";
import { recoverSessions } from "./sessions/recovery.ts";
import { SessionService } from "./sessions/session-service.ts";
import { SessionStore } from "./sessions/session-store.ts";
import { TurnController } from "./sessions/turn-controller.ts";
import { TurnLeases } from "./sessions/turn-leases.ts";
import { TurnSlots } from "./sessions/turn-slots.ts";
import { createMemoryStorage } from "./storage/memory.ts";
import type { StorageDriver } from "./storage/types.ts";
import { createExclusive } from "./timers/exclusive.ts";
import { TimedWork } from "./timers/timed-work.ts";
import type { TimerPort } from "./timers/types.ts";
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
  /** Schedules and reminders. */
  timed: TimedWork;
  /** A/B experiments: sticky arm assignment and live totals. */
  experiments: ExperimentService;
  /** Eval runs over this agent's sessions (purpose `eval`). */
  evals: EvalService;
  /** Recovers interrupted turns, then loads timed work and arms the timer port. */
  recover(): Promise<void>;
}

/** Host-wide facts the agent's timed work needs. */
export interface AgentTimersContext {
  timers: TimerPort;
  /** This host instance, as lease owner. */
  owner: string;
  /** Whether slots fire from `tick` (off under `--no-schedules`). */
  automaticSchedules: boolean;
  /** `--no-control-plane`: the internal fire routes are mounted. */
  internalRoutes: boolean;
}

export function createAgentRuntime(
  mount: AgentMount,
  options: AgentHostOptions,
  context: { logger: HostLogger; now: () => number; mode: "multi" | "single"; timers: AgentTimersContext },
): AgentRuntime {
  const { logger, now } = context;
  const storage = mount.storage ?? createMemoryStorage();
  const log = new EventLog(storage, now);
  const store = new SessionStore(storage, now);
  const conversation = new ConversationLog(storage);
  const approvals = new ApprovalRegistry();
  const reminders = new ReminderService({
    storage,
    exclusive: createExclusive(storage, context.timers.owner),
    get sessions() {
      return sessions;
    },
    store,
    timers: context.timers.timers,
    keyPrefix: mount.slug,
    now,
    logger,
    cancelTool: mount.project.agent.builtinTools?.reminders === true,
  });
  // Tools see the host's services as `ctx.host`.
  const { project } = mount;
  // The agent's local options bound into its runtime: every workspace lookup and script honours them.
  const runtime = bindRuntime(mount.runtime, project, async (sessionId) => (await store.get(sessionId))?.workspaceDir);
  const pendingFiles = runtime?.prepareWorkspace ? new PendingWorkspaceFiles(storage) : undefined;
  const artifacts = new ArtifactStore({ storage, ...(project.artifacts ? { definition: project.artifacts } : {}), log, now, logger });
  const toolServices: ToolContextServices = {
    send: (channelId, message, sendOptions) => sessions.send(channelId, message, sendOptions),
    find: (sessionId) => sessions.find(sessionId),
    artifacts: (bound) => artifacts.facade(bound),
    runtime,
    host: { reminders: reminders.facade },
  };
  const tools: TurnToolsOptions = {
    tools: project.tools ?? {},
    builtins: builtinTools(project, artifacts, { reminders, store, logger }),
    approvals,
    services: toolServices,
    runtime,
    scriptTimeoutMs: SCRIPT_TIMEOUT_MS,
    now,
  };
  const experiments = new ExperimentService({ definitions: project.agent.experiments, log, store });
  const model = chooseModel(project, options);
  const resolve = options.models?.resolve ?? createModelResolver(options.models);
  const runner = withHarness(createRunner(project, model.spec, resolve, tools), {
    project,
    tools,
    models: cachedModels(resolve),
    ...(pendingFiles ? { pendingFiles } : {}),
  });
  const leases = new TurnLeases(storage, `${context.timers.owner}/${mount.slug}`);
  const controller = new TurnController({
    log,
    store,
    conversation,
    slots: new TurnSlots(project.agent.concurrency?.maxRunningTurns),
    runner,
    logger,
    leases,
  });
  const sessions = new SessionService({
    store,
    log,
    controller,
    now,
    enroll: (sessionId, purpose) => experiments.enroll(sessionId, purpose),
    ...(runtime?.removeSessionWorkspace ? { removeWorkspace: (sessionId: string) => runtime.removeSessionWorkspace!(sessionId) } : {}),
    ...(pendingFiles ? { workspaceFiles: pendingFiles } : {}),
  });
  const dispatch = createHookDispatcher({
    hooks: project.hooks ?? {},
    record: (sessionId) => store.get(sessionId),
    artifacts: (bound) => artifacts.facade(bound),
    host: toolServices.host,
    logger,
  });
  if (dispatch) log.onEvent(dispatch);
  const timed: TimedWork = new TimedWork({
    reminders,
    internalRoutes: context.timers.internalRoutes,
    now,
    schedules: new ScheduleRunner({
      schedules: project.schedules ?? {},
      storage,
      exclusive: createExclusive(storage, context.timers.owner),
      timers: context.timers.timers,
      keyPrefix: mount.slug,
      now,
      logger,
      automatic: context.timers.automaticSchedules,
      dispatch: (id, definition, slot) =>
        dispatchSchedule(
          {
            sessions,
            tools: project.tools ?? {},
            toolServices,
            runtime,
            reminders: reminders.facade,
            logger,
            waitUntil: (promise) => timed.waitUntil(promise),
          },
          id,
          definition,
          slot,
        ),
    }),
  });
  const evals = new EvalService({
    storage,
    log,
    sessions,
    stop: (sessionId) => controller.stop(sessionId),
    ...(project.evals ? { evals: project.evals } : {}),
    ...(project.evalConfig ? { config: project.evalConfig } : {}),
    now,
    logger,
  });
  return {
    slug: mount.slug,
    project,
    basePath: context.mode === "multi" ? `/${mount.slug}` : "",
    storage,
    runtime,
    log,
    sessions,
    controller,
    approvals,
    artifacts,
    toolServices,
    policies: defaultPolicies(options.auth),
    model,
    timed,
    experiments,
    evals,
    async recover() {
      await recoverSessions({ store, log, logger, leases });
      await evals.recover();
      await timed.start();
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
function builtinTools(
  project: ProjectDefinition,
  artifacts: ArtifactStore,
  timed: { reminders: ReminderService; store: SessionStore; logger: HostLogger },
): BuiltinTool[] {
  const builtins: BuiltinTool[] = [];
  if (project.agent.builtinTools?.reminders === true) {
    for (const name of REMINDER_TOOLS) {
      if (project.tools && Object.hasOwn(project.tools, name)) {
        timed.logger.warn(`tool ${name} replaces the built-in ${name} of builtinTools.reminders; the authored tool wins`);
      }
    }
    builtins.push(...reminderTools(timed.reminders, timed.store));
  }
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

/**
 * The project with each server tool's `execute` given the host services as `ctx.host`; every
 * other member of a definition is kept as authored.
 */
function createRunner(project: ProjectDefinition, spec: ModelSpec, resolve: ModelResolver, tools: TurnToolsOptions): TurnRunner {
  // Resolved on first use so a missing credential fails turns with a clear message instead of
  // failing start-up; each distinct model (the agent's, an A/B arm's) is resolved once.
  const models = cachedModels(resolve);
  const base = { spec, system: project.instructions };
  const experiments = project.agent.experiments ?? [];
  const specs = toolSpecs(tools);
  return {
    prepare(record, turn) {
      const variant = turnVariant(base, experiments, record.ab);
      return {
        system: variant.system,
        params: variant.spec.params,
        model: models(variant.spec),
        tools: createTurnTools(tools, specs, { record, turnId: turn.turnId, emit: turn.emit }),
        maxSteps: MAX_STEPS,
      };
    },
  };
}
