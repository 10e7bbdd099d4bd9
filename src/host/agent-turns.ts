/**
 * How an agent's turns run (docs/design/foundation.md "Admission"): its model, the turn runner
 * (harness and tracing included) and the turn controller over the agent's turn slots and leases.
 * @module
 */
import type { HostLogger } from "../base/logging.ts";
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
import type { AgentHostOptions } from "./types.ts";

/** The most model steps one turn may take before it fails. */
const MAX_STEPS = 50;

export interface AgentTurnParts {
  slug: string;
  project: ProjectDefinition;
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
}

export function createAgentTurns(parts: AgentTurnParts): { model: { spec: ModelSpec; notice?: string }; controller: TurnController } {
  const { project, options, log, tools, pendingFiles, coordination } = parts;
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
        ...(parts.budgets ? { budgets: parts.budgets } : {}),
      }),
      { project, tools, models, ...(pendingFiles ? { pendingFiles } : {}), ...(parts.oauthTokens ? { oauthTokens: parts.oauthTokens } : {}) },
    ),
    { slug: parts.slug },
  );
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
    // A follow-up's own takeover of a parked turn (`takeOverParked`) has run before: close the rest.
    ...(parts.recoverOrphan ? { recoverOrphan: parts.recoverOrphan } : {}),
  });
  return { model, controller };
}

function chooseModel(project: ProjectDefinition, options: AgentHostOptions): { spec: ModelSpec; notice?: string } {
  const configured = normalizeModelSpec(project.agent.model);
  // A custom resolver replaces model resolution entirely, fallbacks included.
  if (configured) return options.models?.resolve ? { spec: configured } : effectiveModel(configured, options.models);
  if (options.models?.defaultModel) return { spec: { id: options.models.defaultModel, params: {} } };
  const fallback = defaultModelId(options.models?.credentials);
  return { spec: { id: fallback.id, params: {} }, ...(fallback.notice ? { notice: fallback.notice } : {}) };
}
