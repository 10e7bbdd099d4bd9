/**
 * The wire between a host and an `agent-serve runner` (docs/design/cloud-runtime.md "The turn
 * protocol"): the turn request the host POSTs, and the NDJSON lines the runner answers with.
 * @module
 */
import type { ConversationMessage, ModelToolSpec, Usage } from "../../base/ports/model.ts";
import type { EventDraft } from "../../base/events/vocabulary.ts";

export const RUNNER_PROTOCOL = 1;
/** The runner's turn endpoint, relative to its base URL. */
export const RUNNER_TURNS_PATH = "/v1/runner/turns";
export const RUNNER_HEALTH_PATH = "/v1/runner/health";
export const RUNNER_WORKSPACES_PATH = "/v1/runner/workspaces";
/** A session on a runner: `GET` its page, `DELETE` it (and its workspace). */
export const runnerSessionPath = (sessionId: string): string => `/v1/runner/sessions/${encodeURIComponent(sessionId)}`;
/** Headers of a runner's server-tool call back to the host. */
export const CALL_ID_HEADER = "x-agent-serve-call-id";
export const SEQ_HEADER = "x-agent-serve-seq";

/** A repository a cloud session starts from. */
export interface CloudRepo {
  url: string;
  startingRef?: string;
}

/** The cloud block: the agent's, with a session's per-send attachment over it. */
export interface CloudBlock {
  repos?: CloudRepo[];
  env?: Record<string, string>;
  /** Values, or names the runner reads from its own environment. */
  envVars?: Record<string, string> | string[];
}

export interface TurnRequest {
  protocol: typeof RUNNER_PROTOCOL;
  sessionId: string;
  turnId: string;
  agent: string;
  project: { name: string };
  model: { id: string; params: Record<string, string> };
  /** Prepended to the first prompt (docs/guide/agent-projects.md "Agent configuration"). */
  prompt: { instructions: string; agentTools: string };
  messages: ConversationMessage[];
  maxSteps: number;
  cloud: CloudBlock;
  files?: Record<string, string>;
  /** The host's server tools and how to reach them; absent: the turn has none. */
  tools?: { url: string; credential: string; specs: ModelToolSpec[] };
}

export type TurnEndOutcome = { status: "completed"; text: string; usage: Usage; model: string } | { status: "failed"; message: string };

export type RunnerLine =
  | { kind: "bound"; agentId: string; url: string }
  | { kind: "emit"; seq: number; events: EventDraft[]; conversation?: ConversationMessage[] }
  | { kind: "beat" }
  | { kind: "end"; outcome: TurnEndOutcome };
