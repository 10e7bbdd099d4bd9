/**
 * How an agent's turns run (docs/design/foundation.md "Admission"): its model, the turn runner
 * (harness and tracing included) and the turn controller over the agent's turn slots and leases.
 * @module
 */
import type { HostLogger } from "../base/logging.ts";
import type { StorageDriver } from "../base/storage/types.ts";
import type { ModelSpec } from "../base/ports/model.ts";
import type { ProjectDefinition } from "../base/definitions/project.ts";
import type { ApprovalStore } from "../engine/approvals/approval-store.ts";
import type { BudgetGate } from "../engine/budgets/gate.ts";
import { cachedModels } from "../engine/experiments/variant.ts";
import type { PendingWorkspaceFiles } from "../engine/harness/pending-files.ts";
import type { McpOAuthTokens } from "../engine/harness/mcp-oauth-tokens.ts";
import { withHarness } from "../engine/harness/runner.ts";
import { createModelResolver, defaultModelId, effectiveModel, normalizeModelSpec } from "../engine/model/resolve.ts";
import type { EventLog } from "../engine/sessions/event-log.ts";
import type { SessionStore } from "../engine/sessions/session-store.ts";
import { TurnController } from "../engine/sessions/turn-controller.ts";
import { TurnSlots } from "../engine/sessions/turn-slots.ts";
import { traceTurns } from "../engine/telemetry/trace-turns.ts";
import type { ConversationLog } from "../engine/turns/conversation.ts";
import { createTurnRunner } from "../engine/turns/turn-runner.ts";
import type { TurnToolsOptions } from "../engine/turns/turn-tools.ts";
import type { Coordination } from "./coordination.ts";
import { cloudStartupWarnings, isCloudSession, withCloudTurns } from "./cloud-turns.ts";
import { type CloudToolsGate, createCloudTurnRegistry } from "../features/cloud/cloud-tools.ts";
import { createRunnerPool } from "../features/cloud/runner-pool.ts";
import type { AgentHostOptions } from "./types.ts";

/** The most model steps one turn may take before it fails. */
const MAX_STEPS = 50;

export interface AgentTurnParts {
  slug: string;
  /** `/<slug>` in multi mode, `` in single mode (the cloud tools URL is under it). */
  basePath: string;
  project: ProjectDefinition;
  storage: StorageDriver;
  options: AgentHostOptions;
  store: SessionStore;
  log: EventLog;
  conversation: ConversationLog;
  approvals: ApprovalStore;
  tools: TurnToolsOptions;
  pendingFiles?: PendingWorkspaceFiles;
  coordination: Coordination;
  /** Closes what a crashed process left open in a session whose lease this process just took. */
  recoverOrphan?: (sessionId: string) => Promise<unknown>;
  logger: HostLogger;
  /** The stored tokens of MCP connections that take OAuth (docs/guide/mcp.md). */
  oauthTokens?: McpOAuthTokens;
  /** The agent's budgets, when it sets any (docs/guide/budgets.md). */
  budgets?: BudgetGate;
  /** The agent definition's version (./agent-version.ts), recorded in every `turn.started`. */
  agentVersion?: Promise<string | undefined>;
  /** A cloud runner took a turn (./cloud-turns.ts `cloudWorkspaces`). */
  onRunnerBound?: (runner: string, runnerId: string) => void;
}

export function createAgentTurns(parts: AgentTurnParts): { model: { spec: ModelSpec; notice?: string }; controller: TurnController; cloudTools: CloudToolsGate } {
  const { project, options, log, tools, pendingFiles, coordination } = parts;
  const model = chooseModel(project, options);
  // Each distinct model (the agent's, an A/B arm's, a subagent's) is resolved once, on first use.
  const models = cachedModels(options.models?.resolve ?? createModelResolver(options.models));
  const base = createTurnRunner({
    base: { spec: model.spec, system: project.instructions },
    experiments: project.agent.experiments ?? [],
    models,
    tools,
    maxSteps: MAX_STEPS,
    ...(parts.budgets ? { budgets: parts.budgets } : {}),
  });
  // Cloud sessions run on a runner, which resolves the model the agent names with its own credentials.
  const registry = createCloudTurnRegistry();
  const cloud = withCloudTurns(withHarness(base, { project, tools, models, ...(pendingFiles ? { pendingFiles } : {}), ...(parts.oauthTokens ? { oauthTokens: parts.oauthTokens } : {}) }), base, {
    slug: parts.slug,
    project,
    basePath: parts.basePath,
    cloud: options.cloud,
    pool: options.cloud ? createRunnerPool(options.cloud.runners) : undefined,
    registry,
    model: normalizeModelSpec(project.agent.model) ?? model.spec,
    ...(pendingFiles ? { pendingFiles } : {}),
    storage: parts.storage,
    ...(parts.onRunnerBound ? { onRunnerBound: parts.onRunnerBound } : {}),
  });
  for (const warning of cloudStartupWarnings(parts.slug, project, options.cloud)) parts.logger.warn(warning);
  // Every turn traced (a no-op until an OpenTelemetry SDK is registered).
  const tracing = traceTurns(cloud, { slug: parts.slug });
  log.onEvent(tracing.onEvent);
  const controller = new TurnController({
    log,
    store: parts.store,
    conversation: parts.conversation,
    slots: coordination.sharedSlots ?? new TurnSlots(project.agent.concurrency?.maxRunningTurns),
    runner: tracing.runner,
    logger: parts.logger,
    leases: coordination.leases,
    approvals: parts.approvals,
    ...(parts.agentVersion ? { agentVersion: parts.agentVersion } : {}),
    // A cloud runner records its own steps; the local loop's first is recorded at admission.
    stepsHere: (record) => !isCloudSession(project, record),
    // A follow-up's own takeover of a parked turn (`takeOverParked`) has run before: close the rest.
    ...(parts.recoverOrphan ? { recoverOrphan: parts.recoverOrphan } : {}),
  });
  return { model, controller, cloudTools: registry };
}

function chooseModel(project: ProjectDefinition, options: AgentHostOptions): { spec: ModelSpec; notice?: string } {
  const configured = normalizeModelSpec(project.agent.model);
  // A custom resolver replaces model resolution entirely, fallbacks included.
  if (configured) return options.models?.resolve ? { spec: configured } : effectiveModel(configured, options.models);
  if (options.models?.defaultModel) return { spec: { id: options.models.defaultModel, params: {} } };
  const fallback = defaultModelId(options.models?.credentials);
  return { spec: { id: fallback.id, params: {} }, ...(fallback.notice ? { notice: fallback.notice } : {}) };
}
