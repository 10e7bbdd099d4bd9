/**
 * Everything one mounted agent needs at run time: its storage-backed session machinery, its
 * model, its tools, artifacts and hooks, and its auth chain. The HTTP layer only talks to this.
 * @module
 */
import { ApprovalService } from "../engine/approvals/approval-service.ts";
import { ApprovalStore } from "../engine/approvals/approval-store.ts";
import { type ParkedTurnDeps, resumeIfOrphaned, resumeParkedTurn } from "../engine/sessions/parked-turns.ts";
import { ArtifactStore } from "../features/artifacts/store.ts";
import { ChannelHost, HTTP_CHANNEL } from "../features/channels/channel-host.ts";
import { EvalService } from "../features/evals/service.ts";
import { ExperimentService } from "../features/experiments/service.ts";
import { cachedModels } from "../engine/experiments/variant.ts";
import { bindRuntime } from "../engine/harness/bind-runtime.ts";
import { PendingWorkspaceFiles } from "../engine/harness/pending-files.ts";
import { withHarness } from "../engine/harness/runner.ts";
import { createDeliveryClaims } from "../features/channels/packs/delivery-claims.ts";
import { createHookDispatcher } from "../engine/hooks/dispatch.ts";
import { createError } from "../base/errors.ts";
import { createHostKv } from "../engine/kv/kv.ts";
import { createHostOtel } from "../engine/telemetry/host-otel.ts";
import { traceTurns } from "../engine/telemetry/trace-turns.ts";
import type { ProjectFiles } from "../base/definitions/tools.ts";
import { defaultPolicies } from "../http/auth-chain.ts";
import { createModelResolver, defaultModelId, effectiveModel, normalizeModelSpec } from "../engine/model/resolve.ts";
import type { ModelSpec } from "../base/ports/model.ts";
import type { ProjectDefinition } from "../base/definitions/project.ts";
import { ReminderService } from "../features/reminders/service.ts";
import type { RuntimePort } from "../base/ports/runtime.ts";
import { dispatchSchedule } from "../features/schedules/dispatch.ts";
import { callServerTool, findServerTool } from "../engine/direct-calls/direct-call.ts";
import { ScheduleRunner } from "../features/schedules/runner.ts";
import { createActivityLog } from "../engine/sessions/activity-log.ts";
import { EventLog } from "../engine/sessions/event-log.ts";
import { recoverSession, recoverSessions } from "../engine/sessions/recovery.ts";
import { recoverIfOrphaned, startSweeping, sweeperOwner, sweepOrphans, type SweepDeps } from "../engine/sessions/recovery-sweep.ts";
import { ProcessInbox } from "../engine/sessions/process-inbox.ts";
import { SharedTurnSlots } from "../engine/sessions/shared-turn-slots.ts";
import { createSessionEntry } from "../engine/sessions/session-entry.ts";
import { type ForwardedArgs, SessionService } from "../engine/sessions/session-service.ts";
import { livesHere, type PlacedCall } from "../engine/sessions/placement.ts";
import { SessionStore } from "../engine/sessions/session-store.ts";
import { TurnController } from "../engine/sessions/turn-controller.ts";
import { TurnLeases } from "../engine/sessions/turn-leases.ts";
import { TurnSlots } from "../engine/sessions/turn-slots.ts";
import { createMemoryStorage } from "../base/storage/memory.ts";
import { createExclusive } from "../base/storage/exclusive.ts";
import { TimedWork } from "../features/timers/timed-work.ts";
import type { TimerPort } from "../base/ports/timers.ts";
import { ConversationLog } from "../engine/turns/conversation.ts";
import type { ToolContextServices } from "../engine/turns/tool-context.ts";
import { builtinTools } from "./builtin-tools.ts";
import { createTurnRunner } from "../engine/turns/turn-runner.ts";
import type { TurnToolsOptions } from "../engine/turns/turn-tools.ts";
import type { AgentHostOptions, AgentMount } from "./types.ts";
import type { AgentRuntime } from "../http/agent.ts";
import { turnSlotsKey } from "../base/storage/keys.ts";
import type { HostLogger } from "../base/logging.ts";

/** The most model steps one turn may take before it fails. */
const MAX_STEPS = 50;
/** The least time a request forwarded to the process running a session's turn gets to answer. */
const FORWARD_TIMEOUT_MS = 10_000;
/** Longest an agent-execution tool script may run. */
const SCRIPT_TIMEOUT_MS = 120_000;

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

/**
 * Composes one agent, each service built once from what it needs, in dependency order:
 *
 * 1. storage and the records over it (event log, session records, conversations, approvals);
 * 2. the session entry: the one seam of the cycle "tools and reminders start turns, turns run
 *    tools" (../engine/sessions/session-entry.ts), bound in step 5;
 * 3. what tools and hooks reach: the bound runtime, artifacts, reminders, the tool services;
 * 4. turns: the model, the turn runner (harness included), the turn controller;
 * 5. sessions (with A/B enrolment), then the session entry is bound;
 * 6. what watches or drives sessions: hooks, timed work (schedules and reminders), evals,
 *    channels.
 *
 * A new service goes in the first step where everything it needs exists.
 */
export function createAgentRuntime(
  mount: AgentMount,
  options: AgentHostOptions,
  context: { logger: HostLogger; now: () => number; mode: "multi" | "single"; timers: AgentTimersContext },
): AgentRuntime {
  const { logger, now } = context;
  const { project } = mount;
  const basePath = context.mode === "multi" ? `/${mount.slug}` : "";

  // 1. Storage and the records over it.
  const storage = mount.storage ?? createMemoryStorage();
  const log = new EventLog(storage, now);
  const store = new SessionStore(storage, now);
  const conversation = new ConversationLog(storage);
  const approvalStore = new ApprovalStore(storage, now);

  // 2. The session entry, for the services of step 3 that start turns.
  const entry = createSessionEntry();

  // 3. What tools and hooks reach.
  // The agent's local options bound into its runtime: every workspace lookup and script honours them.
  const runtime = bindRuntime(mount.runtime, project, async (sessionId) => (await store.get(sessionId))?.workspaceDir);
  const pendingFiles = runtime?.prepareWorkspace ? new PendingWorkspaceFiles(storage) : undefined;
  const artifacts = new ArtifactStore({ storage, ...(project.artifacts ? { definition: project.artifacts } : {}), log, now, logger });
  const reminders = new ReminderService({
    storage,
    exclusive: createExclusive(storage, context.timers.owner),
    sessions: entry,
    store,
    timers: context.timers.timers,
    keyPrefix: mount.slug,
    now,
    logger,
    cancelTool: project.agent.builtinTools?.reminders === true,
    host: () => toolServices.host,
  });
  // Tools see the host's services as `ctx.host`.
  const toolServices: ToolContextServices = {
    send: entry.send,
    find: entry.find,
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
    approvals: approvalStore,
    services: toolServices,
    runtime,
    scriptTimeoutMs: SCRIPT_TIMEOUT_MS,
    now,
  };

  // 4. Turns.
  const model = chooseModel(project, options);
  // Each distinct model (the agent's, an A/B arm's, a subagent's) is resolved once, on first use.
  const models = cachedModels(options.models?.resolve ?? createModelResolver(options.models));
  // Every turn traced (a no-op until an OpenTelemetry SDK is registered).
  const tracing = traceTurns(
    withHarness(
      createTurnRunner({
        base: { spec: model.spec, system: project.instructions },
        experiments: project.agent.experiments ?? [],
        models,
        tools,
        maxSteps: MAX_STEPS,
      }),
      { project, tools, models, ...(pendingFiles ? { pendingFiles } : {}) },
    ),
    { slug: mount.slug },
  );
  const runner = tracing.runner;
  log.onEvent(tracing.onEvent);
  // Coordination between processes sharing the store (docs/design/processes.md).
  const leases = new TurnLeases(storage, `${context.timers.owner}/${mount.slug}`, options.leaseTtlMs);
  const { follow: followReach, sharedLeases } = storage.capabilities;
  // Sessions placed in hosts of their own need no forwarding: what concerns one is sent to its host.
  const placement = options.placement;
  const crossProcess = placement === undefined && (sharedLeases || followReach === "shared");
  const maxRunningTurns = project.agent.concurrency?.maxRunningTurns;
  const sharedSlots =
    sharedLeases && maxRunningTurns !== undefined
      ? new SharedTurnSlots(storage, { key: turnSlotsKey(mount.slug), max: maxRunningTurns, owner: leases.owner })
      : undefined;
  const controller = new TurnController({
    log,
    store,
    conversation,
    slots: sharedSlots ?? new TurnSlots(maxRunningTurns),
    runner,
    logger,
    leases,
    approvals: approvalStore,
    // A follow-up's own takeover of a parked turn (`takeOverParked`) has run before: close the rest.
    ...(crossProcess
      ? { recoverOrphan: (sessionId: string) => recoverSession({ store, log, logger, conversation, leases, approvals: approvalStore }, sessionId) }
      : {}),
  });
  // Parked turns outlive their process: recovery and resolutions continue them here.
  const parked: ParkedTurnDeps = {
    approvals: approvalStore,
    store,
    log,
    conversation,
    leases,
    isBusy: (sessionId) => controller.isBusy(sessionId),
    resume: (record, turnId) => controller.resumeParked(record, turnId),
  };
  const approvals = new ApprovalService({
    store: approvalStore,
    // A session living in another host continues its parked turn there.
    resumeIfOrphaned: (sessionId) =>
      livesHere(placement, sessionId) ? resumeIfOrphaned(parked, sessionId) : placement!.send(mount.slug, sessionId, { op: "resume" }),
    logger,
  });
  // The sweep recovers under its own lease owner: a parked turn it resumes here needs that lease
  // handed to this process's owner first.
  const sweptParked: ParkedTurnDeps = {
    ...parked,
    resume: async (record, turnId) => {
      await leases.release(record.sessionId, sweeperOwner(leases));
      return controller.resumeParked(record, turnId);
    },
  };
  // What recovery at start and the periodic sweep both close sessions with.
  const recovery = { store, log, logger, conversation, leases, approvals: approvalStore };
  const sweepDeps: SweepDeps = {
    ...recovery,
    resumeParked: (record, events) => resumeParkedTurn(sweptParked, record, events),
    isLocal: (sessionId) => controller.isBusy(sessionId),
    ...(sharedSlots ? { slots: sharedSlots } : {}),
  };

  // 5. Sessions; from here on the session entry reaches them.
  const experiments = new ExperimentService({ definitions: project.agent.experiments, log, store });
  const sessions = new SessionService({
    store,
    log,
    controller,
    now,
    enroll: (sessionId, purpose) => experiments.enroll(sessionId, purpose),
    ...(options.newSessionId ? { newSessionId: options.newSessionId } : {}),
    ...(placement
      ? { placed: { isHere: (sessionId: string) => livesHere(placement, sessionId), send: (sessionId: string, call: PlacedCall) => placement.send(mount.slug, sessionId, call) } }
      : {}),
    ...(runtime?.removeSessionWorkspace ? { removeWorkspace: (sessionId: string) => runtime.removeSessionWorkspace!(sessionId) } : {}),
    ...(pendingFiles ? { workspaceFiles: pendingFiles } : {}),
    approvals: approvalStore,
    takeOverParked: (sessionId) => resumeIfOrphaned(parked, sessionId),
  });
  entry.bind(sessions);
  const inbox = crossProcess
    ? new ProcessInbox(storage, leases.owner, (request) => sessions.handleForwarded(request.op, request.args as ForwardedArgs))
    : undefined;
  if (inbox) {
    sessions.coordinate({
      // A forwarded preempt waits for the running turn to settle; past a lease ttl its process is gone.
      forward: (owner, op, args) => inbox.request(owner, { op, args }, Math.max(leases.ttlMs, FORWARD_TIMEOUT_MS)),
      recoverIfOrphaned: (sessionId, owner) => recoverIfOrphaned(sweepDeps, sessionId, owner),
    });
  }
  let stopSweeping = (): void => {};

  // 6. What watches or drives sessions.
  const dispatch = createHookDispatcher({
    hooks: project.hooks ?? {},
    record: (sessionId) => store.get(sessionId),
    artifacts: (bound) => artifacts.facade(bound),
    host: toolServices.host,
    logger,
  });
  if (dispatch) log.onEvent(dispatch);
  log.onEvent(createActivityLog(mount.slug, logger));
  const timed = new TimedWork({
    reminders,
    internalRoutes: context.timers.internalRoutes,
    now,
    schedules: (waitUntil) =>
      new ScheduleRunner({
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
            { sessions, tools: project.tools ?? {}, toolServices, runtime, reminders: reminders.facade, logger, waitUntil },
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
    stop: (sessionId) => sessions.interrupt(sessionId),
    ...(project.evals ? { evals: project.evals } : {}),
    ...(project.evalConfig ? { config: project.evalConfig } : {}),
    toolEffect: (name) => project.tools?.[name]?.effect,
    now,
    logger,
  });
  const channels = new ChannelHost({
    definitions: project.channels ?? {},
    basePath,
    sessions,
    store,
    log,
    controller,
    approvals,
    toolServices,
    storage,
    logger,
    ...(options.channels?.retryDelaysMs ? { retryDelaysMs: options.channels.retryDelaysMs } : {}),
    async callTool(name, input, sessionId) {
      const tool = findServerTool({ project }, name);
      const owner = sessionId === undefined ? undefined : (await store.get(sessionId))?.owner;
      const outcome = await callServerTool(
        { project, runtime, toolServices, sessions, controller, log },
        tool,
        { input, auth: owner ?? { authenticator: "channel", principalId: "channel", principalType: "service" }, signal: new AbortController().signal, ...(sessionId === undefined ? {} : { sessionId }) },
      );
      return { isError: outcome.isError, result: outcome.result };
    },
  });
  return {
    slug: mount.slug,
    project,
    basePath,
    storage,
    runtime,
    log,
    sessions,
    controller,
    approvals,
    approvalStore,
    artifacts,
    toolServices,
    // An authored `bot/channels/http.ts` chain wins over the start-up flags (docs/guide/channels.md "Auth").
    policies: project.channels?.[HTTP_CHANNEL]?.auth ?? defaultPolicies(options.auth),
    model,
    timed,
    experiments,
    evals,
    channels,
    async recover() {
      inbox?.start();
      // A store built for many processes: only turns whose lease expired are ours to close. A
      // process-local one (memory, sqlite) serves one host: what it left open at a crash is closed now.
      // A placed host sees only its own session's marker and is its only runner: an open turn, and
      // a turn slot held under its owner, are its dead predecessor's.
      if (placement) {
        await sharedSlots?.forget((slot) => slot.owner === leases.owner).catch(() => {});
        await recoverSessions({ ...recovery, resumeParked: (record, events) => resumeParkedTurn(parked, record, events) });
      } else if (followReach === "shared") await sweepOrphans(sweepDeps);
      else {
        await recoverSessions({ ...recovery, resumeParked: (record, events) => resumeParkedTurn(parked, record, events) });
        await sharedSlots?.forget((slot) => slot.owner !== leases.owner).catch(() => {});
      }
      if (sharedLeases && !placement) stopSweeping = startSweeping(sweepDeps, leases.ttlMs);
      // Eval runs belong to the host that holds no session (they start there).
      if (placement?.session === undefined) await evals.recover();
      await timed.start();
      await channels.start();
    },
    async closeCoordination() {
      stopSweeping();
      await inbox?.close();
    },
  };
}

// --- internals ---

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

function chooseModel(project: ProjectDefinition, options: AgentHostOptions): { spec: ModelSpec; notice?: string } {
  const configured = normalizeModelSpec(project.agent.model);
  // A custom resolver replaces model resolution entirely, fallbacks included.
  if (configured) return options.models?.resolve ? { spec: configured } : effectiveModel(configured, options.models);
  if (options.models?.defaultModel) return { spec: { id: options.models.defaultModel, params: {} } };
  const fallback = defaultModelId(options.models?.credentials);
  return { spec: { id: fallback.id, params: {} }, ...(fallback.notice ? { notice: fallback.notice } : {}) };
}
