/**
 * Everything one mounted agent needs at run time: its storage-backed session machinery, its
 * model, its tools, artifacts and hooks, and its auth chain. The HTTP layer only talks to this.
 * @module
 */
import type { HostLogger } from "../base/logging.ts";
import { createMemoryStorage } from "../base/storage/memory.ts";
import { ApprovalService } from "../engine/approvals/approval-service.ts";
import { ApprovalStore } from "../engine/approvals/approval-store.ts";
import { ExperimentService } from "../features/experiments/service.ts";
import { createHookDispatcher } from "../engine/hooks/dispatch.ts";
import { createActivityLog } from "../engine/sessions/activity-log.ts";
import { EventLog } from "../engine/sessions/event-log.ts";
import type { Inbound } from "../engine/sessions/inbound.ts";
import { LocalSessions } from "../engine/sessions/local-sessions.ts";
import { createSessionEntry } from "../engine/sessions/session-entry.ts";
import { SessionStore } from "../engine/sessions/session-store.ts";
import { callServerTool, findServerTool } from "../engine/direct-calls/direct-call.ts";
import { ConversationLog } from "../engine/turns/conversation.ts";
import { a2aPushFailedPrefix, a2aPushOutboxPrefix, a2aPushPrefix, a2aTaskIndexKey, cloudTurnKey, deliveryCursorKey, sessionBudgetKey, turnBudgetKey, webhookDeliveryChannel } from "../base/storage/keys.ts";
import { A2APushDelivery } from "../features/a2a/push-delivery.ts";
import { resolveEndpoints } from "../features/webhooks/endpoints.ts";
import { WebhookDelivery } from "../features/webhooks/delivery.ts";
import { ChannelHost, HTTP_CHANNEL } from "../features/channels/channel-host.ts";
import { EvalService } from "../features/evals/service.ts";
import type { AgentRuntime } from "../http/agent.ts";
import { defaultPolicies } from "../http/auth-chain.ts";
import { createAgentTools } from "./agent-tools.ts";
import { createMcpOAuthTokens } from "../engine/harness/mcp-oauth-tokens.ts";
import { gateSends } from "../engine/budgets/send-gate.ts";
import { createAgentBudgets } from "./agent-budgets.ts";
import { createAgentTurns } from "./agent-turns.ts";
import { agentVersion } from "./agent-version.ts";
import { CLOUD_ALLOWLIST_REFUSAL, cloudWorkspaces } from "./cloud-turns.ts";
import { createCoordination } from "./coordination.ts";
import { createRecovery, orphanRecovery } from "./recovery.ts";
import { placeSessions } from "./session-placement.ts";
import { type AgentTimersContext, createTimedWork } from "./timed.ts";
import type { AgentHostOptions, AgentMount } from "./types.ts";

export type { AgentTimersContext };

/** One agent as the host holds it: what routes see, and the receiving end of placed calls. */
export interface HostedAgent extends AgentRuntime {
  /** Answers what another host sent for a session that lives here (./session-placement.ts). */
  answer: Inbound;
}

/**
 * Composes one agent, each service built once from what it needs, in dependency order:
 *
 * 1. storage and the records over it (event log, session records, conversations, approvals),
 *    and the coordination with other processes and hosts (./coordination.ts);
 * 2. the session entry: the one seam of the cycle "tools and reminders start turns, turns run
 *    tools" (../engine/sessions/session-entry.ts), bound in step 5;
 * 3. what tools and hooks reach (./agent-tools.ts);
 * 4. turns: the model, the turn runner, the turn controller (./agent-turns.ts), and recovery
 *    (./recovery.ts);
 * 5. sessions: the local service with A/B enrolment, wrapped in the placement strategy chosen
 *    once (./session-placement.ts); then the session entry is bound;
 * 6. what watches or drives sessions: hooks, timed work (./timed.ts), evals, channels.
 *
 * A new service goes in the first step where everything it needs exists.
 */
export function createAgentRuntime(
  mount: AgentMount,
  options: AgentHostOptions,
  context: { logger: HostLogger; now: () => number; mode: "multi" | "single"; timers: AgentTimersContext },
): HostedAgent {
  const { logger, now } = context;
  const { project, slug } = mount;
  const basePath = context.mode === "multi" ? `/${slug}` : "";

  // 1. Storage, the records over it, and the coordination between processes sharing it.
  const storage = mount.storage ?? createMemoryStorage();
  const log = new EventLog(storage, now);
  const store = new SessionStore(storage, now);
  const conversation = new ConversationLog(storage);
  const approvalStore = new ApprovalStore(storage, now);
  const coordination = createCoordination(storage, {
    owner: context.timers.owner,
    slug,
    ...(options.leaseTtlMs === undefined ? {} : { leaseTtlMs: options.leaseTtlMs }),
    ...(options.placement ? { placement: options.placement } : {}),
    ...(project.agent.concurrency?.maxRunningTurns === undefined ? {} : { maxRunningTurns: project.agent.concurrency.maxRunningTurns }),
  });

  // 2. The session entry, for the services of step 3 that start turns.
  const entry = createSessionEntry();

  // 3. What tools and hooks reach.
  const agentTools = createAgentTools(mount, {
    storage,
    store,
    log,
    approvals: approvalStore,
    entry,
    now,
    logger,
    timers: context.timers.timers,
    owner: context.timers.owner,
  });
  const { runtime, pendingFiles, artifacts, reminders, toolServices } = agentTools;

  // 4. Turns, and the recovery of what a crash left open.
  const isIdempotent = (toolName: string): boolean => project.tools?.[toolName]?.idempotent === true;
  const recoveryParts = { store, log, logger, conversation, approvals: approvalStore, coordination, isIdempotent, storage };
  const recoverOrphan = orphanRecovery(recoveryParts);
  const budgets = createAgentBudgets(project, storage, now);
  // Hashed once per host: a reload or deploy builds a new host, and so a new version.
  const version = agentVersion(project).catch((error: unknown) => {
    logger.error("could not compute the agent's version; turns record none", error);
    return undefined;
  });
  // Cloud runners' workspaces go with their sessions (docs/design/cloud-workspaces.md).
  const runnerWorkspaces = cloudWorkspaces(slug, options.cloud, async (sessionId) => (await store.get(sessionId)) !== undefined, logger);
  const { model, controller, cloudTools } = createAgentTurns({
    agentVersion: version,
    slug,
    basePath,
    storage,
    project,
    options,
    store,
    log,
    conversation,
    approvals: approvalStore,
    tools: agentTools.tools,
    ...(pendingFiles ? { pendingFiles } : {}),
    coordination,
    ...(recoverOrphan ? { recoverOrphan } : {}),
    logger,
    oauthTokens: createMcpOAuthTokens({ storage }),
    ...(budgets ? { budgets } : {}),
    ...(runnerWorkspaces ? { onRunnerBound: (runner: string, runnerId: string) => runnerWorkspaces.bound(runner, runnerId) } : {}),
  });
  const recovery = createRecovery(recoveryParts, controller);

  // 5. Sessions; from here on the session entry reaches them.
  // A deleted session's workspace goes here and on the cloud runners (docs/design/cloud-workspaces.md).
  const removeWorkspace =
    runtime?.removeSessionWorkspace || runnerWorkspaces
      ? async (sessionId: string) => {
          runnerWorkspaces?.removed(sessionId);
          await runtime?.removeSessionWorkspace?.(sessionId);
        }
      : undefined;
  const experiments = new ExperimentService({ definitions: project.agent.experiments, log, store });
  const webhookEndpoints = resolveEndpoints(project.agent.webhooks ?? [], options.dev === true);
  const local = new LocalSessions({
    store,
    log,
    controller,
    now,
    enroll: (sessionId, purpose) => experiments.enroll(sessionId, purpose),
    ...(removeWorkspace ? { removeWorkspace } : {}),
    ...(pendingFiles ? { workspaceFiles: pendingFiles } : {}),
    approvals: approvalStore,
    takeOverParked: (sessionId) => recovery.takeOverParked(sessionId),
    conversation,
    // A removed session takes its A2A push configs (and their pending posts), its webhook cursors and its cloud turn's runner with it.
    featureKeys: async (sessionId) => [
      cloudTurnKey(sessionId),
      ...(await storage.list(a2aPushPrefix(sessionId))),
      ...(await storage.list(a2aPushOutboxPrefix(sessionId))),
      ...(await storage.list(a2aPushFailedPrefix(sessionId))),
      a2aTaskIndexKey(sessionId),
      ...webhookEndpoints.map((endpoint) => deliveryCursorKey(webhookDeliveryChannel(endpoint.id), sessionId)),
      // Its own budget records go with it; the per-day ones keep counting what it spent.
      ...(budgets ? [turnBudgetKey(sessionId), sessionBudgetKey(sessionId)] : []),
    ],
  });
  const placing = placeSessions({
    slug,
    storage,
    store,
    controller,
    local,
    coordination,
    recovery,
    callTool: (sessions, sessionId, call) =>
      callServerTool({ project, runtime, toolServices, sessions, controller, log }, findServerTool({ project }, call.toolName), {
        input: call.input,
        sessionId,
        auth: call.auth,
        signal: new AbortController().signal,
      }),
  });
  const { inbox } = placing;
  // While a budget is used up, sends answer 429 whoever makes them (docs/guide/budgets.md).
  const sessions = budgets ? gateSends(placing.sessions, budgets) : placing.sessions;
  // A turn beginning here is what requests from other processes can be about: the inbox polls.
  if (inbox) log.onEvent(() => inbox.wake());
  entry.bind(sessions);
  // A session living in another host continues its parked turn there.
  const approvals = new ApprovalService({ store: approvalStore, resumeIfOrphaned: (sessionId) => placing.resume(sessionId), logger });

  // 6. What watches or drives sessions.
  const dispatch = createHookDispatcher({
    hooks: project.hooks ?? {},
    record: (sessionId) => store.get(sessionId),
    artifacts: (bound) => artifacts.facade(bound),
    host: toolServices.host,
    logger,
  });
  if (dispatch) log.onEvent(dispatch);
  log.onEvent(createActivityLog(slug, logger));
  const timed = createTimedWork({ slug, project, storage, sessions, reminders, toolServices, runtime, context: context.timers, now, logger });
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
    ...(project.agent.tools === undefined ? {} : { cloudRefusal: CLOUD_ALLOWLIST_REFUSAL }),
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
  // A2A push notifications ride the channels' durable delivery (docs/guide/a2a.md "Push notifications").
  const a2aPush = new A2APushDelivery({
    log,
    storage,
    store,
    delivers: (sessionId) => sessions.isHere(sessionId),
    logger,
    // The channels' schedule, when a host sets one, paces the posts' retries too.
    ...(options.channels?.retryDelaysMs ? { retryDelaysMs: options.channels.retryDelaysMs, pushRetryDelaysMs: options.channels.retryDelaysMs } : {}),
  });
  // Lifecycle webhooks ride it too, one cursor per endpoint (docs/guide/webhooks.md).
  const webhooks = new WebhookDelivery({
    endpoints: webhookEndpoints,
    log,
    storage,
    store,
    delivers: (sessionId) => sessions.isHere(sessionId),
    logger,
    now,
    ...(options.channels?.retryDelaysMs ? { retryDelaysMs: options.channels.retryDelaysMs } : {}),
  });
  return {
    slug,
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
    cloudTools,
    // An authored `bot/channels/http.ts` chain wins over the start-up flags (docs/guide/channels.md "Auth").
    policies: project.channels?.[HTTP_CHANNEL]?.auth ?? defaultPolicies(options.auth),
    model,
    agentVersion: version,
    timed,
    experiments,
    evals,
    channels,
    a2aPush,
    webhooks,
    ...(budgets ? { budgets } : {}),
    answer: placing.answer,
    async recover() {
      inbox?.start();
      await recovery.start();
      // Eval runs belong to the host that holds no session (they start there).
      if (options.placement?.session === undefined) await evals.recover();
      await timed.start();
      // Not waited for: runners that are slow or down must not hold the host's start.
      void runnerWorkspaces?.reconcile().catch((error: unknown) => logger.error("runner workspace clean-up failed", error));
      await channels.start();
      await a2aPush.start();
      await webhooks.start();
    },
    async closeCoordination() {
      recovery.stop();
      await inbox?.close();
    },
  };
}
