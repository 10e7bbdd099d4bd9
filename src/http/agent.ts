/**
 * What the HTTP layer reaches of one mounted agent: its session machinery, services and auth
 * chain. The composition (../host/agent-runtime.ts) builds it; routes only read it.
 * @module
 */
import type { AuthPolicy } from "../base/auth.ts";
import type { ProjectDefinition } from "../base/definitions/project.ts";
import type { ModelSpec } from "../base/ports/model.ts";
import type { RuntimePort } from "../base/ports/runtime.ts";
import type { StorageDriver } from "../base/storage/types.ts";
import type { ApprovalService } from "../engine/approvals/approval-service.ts";
import type { ApprovalStore } from "../engine/approvals/approval-store.ts";
import type { BudgetGate } from "../engine/budgets/gate.ts";
import type { ExperimentService } from "../features/experiments/service.ts";
import type { EventLog } from "../engine/sessions/event-log.ts";
import type { SessionService } from "../engine/sessions/session-service.ts";
import type { TurnController } from "../engine/sessions/turn-controller.ts";
import type { ToolContextServices } from "../engine/turns/tool-context.ts";
import type { CloudToolsGate } from "../features/cloud/cloud-tools.ts";
import type { ArtifactStore } from "../features/artifacts/store.ts";
import type { A2APushDelivery } from "../features/a2a/push-delivery.ts";
import type { WebhookDelivery } from "../features/webhooks/delivery.ts";
import type { ChannelHost } from "../features/channels/channel-host.ts";
import type { EvalService } from "../features/evals/service.ts";
import type { TimedWork } from "../features/timers/timed-work.ts";

/** One mounted agent as routes see it. */
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
  approvals: ApprovalService;
  /** Parked calls in storage; `suspend` on close leaves them parked for the next start. */
  approvalStore: ApprovalStore;
  artifacts: ArtifactStore;
  toolServices: ToolContextServices;
  /** The live cloud turns' server tools, for `/v1/mcp/tools` with a turn credential (docs/design/cloud-runtime.md). */
  cloudTools?: CloudToolsGate;
  policies: AuthPolicy[];
  model: { spec: ModelSpec; notice?: string };
  /** The agent definition's version (docs/design/deploy-safe-sessions.md), once hashed. */
  agentVersion?: Promise<string | undefined>;
  /** Schedules and reminders. */
  timed: TimedWork;
  /** A/B experiments: sticky arm assignment and live totals. */
  experiments: ExperimentService;
  /** Eval runs over this agent's sessions (purpose `eval`). */
  evals: EvalService;
  /** Custom channels (`bot/channels/`): their services, lifecycle and event delivery. */
  channels: ChannelHost;
  /** A2A push notification delivery (docs/guide/a2a.md "Push notifications"). */
  a2aPush: A2APushDelivery;
  /** Signed lifecycle webhooks and their failed deliveries (docs/guide/webhooks.md). */
  webhooks: WebhookDelivery;
  /** Hard budgets, when the agent sets any (docs/guide/budgets.md). */
  budgets?: BudgetGate;
  /** Stops the recovery sweep and the process inbox (after turns have drained). */
  closeCoordination(): Promise<void>;
  /** Recovers interrupted turns, then loads timed work and arms the timer port. */
  recover(): Promise<void>;
}
