/**
 * The response shapes of the HTTP routes (docs/guide/http-api.md), as clients read them. Shapes
 * the core already declares next to the code that builds them are re-exported from there; the
 * others are declared here and the routes check their bodies against them.
 * @module
 */
import type { LogLine } from "../base/logging.ts";
import type { BudgetReport } from "../base/definitions/budgets.ts";
import type { CostReport } from "../features/cost/report.ts";
import type { SessionSummary } from "../base/definitions/sessions.ts";
import type { ArtifactRecord } from "../base/definitions/artifacts.ts";

export type { ApprovalView } from "../engine/approvals/approval-store.ts";
export type { CostReport, CostSubagentRun, CostTurn } from "../features/cost/report.ts";
export type { EvalCaseResult, EvalFailure, EvalRunError, EvalRunSnapshot } from "../base/definitions/evals.ts";
export type { AgentIndexEntry } from "./agent-index.ts";
export type { McpSessionStatus, SessionReport } from "../features/mcp/session-watch.ts";
export type { SessionSummary } from "../base/definitions/sessions.ts";
export type { DirectCallOutcome } from "../engine/direct-calls/direct-call.ts";
export type { LogLine } from "../base/logging.ts";
export type { FailedWebhookDelivery } from "../base/definitions/webhooks.ts";

/**
 * `GET /v1/session/:id/cost`: the cost report and, when the agent sets budgets, usage against
 * each limit of the scopes the session counts toward (docs/guide/budgets.md "Usage").
 */
export interface SessionCostResponse extends CostReport {
  budgets?: BudgetReport;
}

/** Every failure: `{ok:false, error, message?}`, plus `issues`, `tools` and the like per code. */
export interface ErrorEnvelope {
  ok: false;
  error: string;
  message?: string;
  [extra: string]: unknown;
}

/** `POST /v1/session`. */
export interface CreateSessionResponse {
  ok: true;
  sessionId: string;
  continuationToken: string;
  playgroundUrl: string;
  traceUrl: string;
}

/** `POST /v1/session/:id` (the new continuation token). */
export interface FollowUpResponse {
  ok: true;
  sessionId: string;
  continuationToken: string;
}

/** `GET /v1/sessions`: a page, newest-updated first; `nextCursor` is null on the last page. */
export interface SessionListResponse {
  sessions: SessionSummary[];
  nextCursor: string | null;
}

/** `GET /v1/session/:id`. */
export interface SessionResponse {
  session: SessionSummary;
}

/** `GET /v1/artifacts`: a page, newest-updated first; `nextCursor` is null on the last page. */
export interface ArtifactListResponse {
  artifacts: ArtifactRecord[];
  nextCursor: string | null;
}

/** `POST /v1/session/:id/stop`. */
export interface StopResponse {
  ok: true;
  stopped: boolean;
}

/** `POST /v1/session/:id/approvals/:callId`. */
export interface ApprovalDecisionResponse {
  ok: true;
  sessionId: string;
  callId: string;
  decision: "approve" | "deny";
}

/** `GET /v1/meta`: what a page shows before it authenticates. */
export interface AgentMeta {
  name: string;
  slug: string;
  dev: boolean;
  basePath: string;
  version: string;
  /** The event format's version (docs/design/event-format.md). */
  eventFormat: number;
}

/** `GET /v1/logs?after=N`. */
export interface LogsPage {
  lines: LogLine[];
  next: number;
}
