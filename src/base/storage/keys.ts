/**
 * Every storage key and log name the host writes, in one place: the layout of an agent's storage
 * (docs/design/storage.md "Layout"). Keys are `/`-separated; a session's own data shares the
 * `sessions/<id>/` prefix, so removing that prefix removes the session.
 * @module
 */

/** A session's record. */
export const sessionRecordKey = (sessionId: string): string => `sessions/${sessionId}/record`;
/** Prefix of every session's record (listing). */
export const SESSIONS_PREFIX = "sessions/";
/** A session's event log. */
export const eventLogName = (sessionId: string): string => `sessions/${sessionId}/events`;
/** A session's model conversation log. */
export const conversationLogName = (sessionId: string): string => `sessions/${sessionId}/conversation`;
/** Per-send workspace files waiting for the session's next turn. */
export const pendingFilesKey = (sessionId: string): string => `sessions/${sessionId}/workspace-files`;
/** A cloud turn's runner and the last of its event lines committed (docs/design/cloud-runtime.md). */
export const cloudTurnKey = (sessionId: string): string => `sessions/${sessionId}/cloud-turn`;
/** Marks a session with a turn admitted and not yet idle again (start-up reads only these). */
export const activeKey = (sessionId: string): string => `active/${sessionId}`;
export const ACTIVE_PREFIX = "active/";
/**
 * The session listing's index (docs/design/listing.md): one entry per session under every
 * session and one under its owner's, keyed newest-updated first, its value the session's summary;
 * written in the commit that writes the record. `ready` marks a store whose older sessions have
 * been indexed.
 */
export const SESSION_INDEX_ALL_PREFIX = "session-index/all/";
/**
 * Every index write of a session encodes its owner; most hosts write for one principal after
 * another, so the last one's prefix is kept (docs/design/speed.md "CPU per turn").
 */
let lastOwner: { principalId: string; prefix: string } | undefined;
export function sessionIndexOwnerPrefix(principalId: string): string {
  if (lastOwner?.principalId !== principalId) lastOwner = { principalId, prefix: `session-index/owner/${ownerSegment(principalId)}/` };
  return lastOwner.prefix;
}
export const SESSION_INDEX_READY_KEY = "session-index/ready";
/** A session's place in an index: `<10^13 - 1 - updatedAt ms, 13 digits>/<sessionId>`, so newer sorts first. */
export function sessionIndexPosition(updatedAt: string, sessionId: string): string {
  const ms = Date.parse(updatedAt);
  const clamped = Number.isFinite(ms) ? Math.min(Math.max(ms, 0), RECENCY_MAX) : 0;
  return `${String(RECENCY_MAX - clamped).padStart(13, "0")}/${sessionId}`;
}
/** Whether a string is shaped like a `sessionIndexPosition` (cursors come from clients). */
export const isSessionIndexPosition = (value: string): boolean => /^\d{13}\/[A-Za-z0-9_.-]{1,128}$/.test(value);
/** A channel's continuation key (or HTTP token) bound to its session. */
export const continuationKey = (channel: string, token: string): string => `continuations/${channel}/${encodeSegment(token)}`;
/** A session's turn lease (one turn at a time across processes). */
export const turnLeaseKey = (sessionId: string): string => `turns/${sessionId}`;
/** The host-wide running-turn cap's slots of one agent. */
export const TURN_SLOTS_PREFIX = "turn-slots/";
export const turnSlotsKey = (slug: string): string => `${TURN_SLOTS_PREFIX}${slug}`;
/** Requests forwarded to the process `owner` (docs/design/processes.md "Forwarding"). */
export const inboxLogName = (owner: string): string => `processes/${owner}/inbox`;
/** A session's parked approval calls (records below it) and its decisions log. */
export const approvalsPrefix = (sessionId: string): string => `approvals/${sessionId}/`;
export const approvalDecisionsLogName = (sessionId: string): string => `approvals/${sessionId}/decisions`;
/** A schedule's state (next and last fire) and its per-slot fire lease. */
export const scheduleStateKey = (scheduleId: string): string => `schedules/${scheduleId}`;
export const scheduleFireKey = (scheduleId: string): string => `schedule-fire/${scheduleId}`;
/** Reminder records. */
export const REMINDERS_PREFIX = "reminders/";
/** Eval run snapshots. */
export const EVAL_RUNS_PREFIX = "eval-runs/";
/** Artifact records and their payloads. */
export const ARTIFACTS_PREFIX = "artifacts/";
export const artifactRecordKey = (id: string): string => `${ARTIFACTS_PREFIX}${id}`;
export const artifactContentKey = (id: string): string => `artifact-content/${id}`;
/** How far a channel's event delivery got in a session. */
export const deliveryCursorPrefix = (channelId: string): string => `channels/${channelId}/delivered/`;
export const deliveryCursorKey = (channelId: string, sessionId: string): string => `${deliveryCursorPrefix(channelId)}${sessionId}`;
/** A channel pack's claim on one inbound delivery (exactly-once replies). */
export const deliveryClaimKey = (scope: string, id: string): string => `channels/${scope}/deliveries/${id}`;
/** A2A push notification configs of a session's tasks (docs/guide/a2a.md "Push notifications"). */
export const a2aPushPrefix = (sessionId: string, turnId?: string): string => `a2a/push/${sessionId}/${turnId === undefined ? "" : `${turnId}/`}`;
export const a2aPushKey = (sessionId: string, turnId: string, configId: string): string => `${a2aPushPrefix(sessionId, turnId)}${configId}`;
/**
 * A2A push notifications waiting to be posted, per config, in log order (docs/design/a2a-push.md):
 * `<sessionId>/<turnId>/<configId>/<log index, 12 digits>.<position>`.
 */
export const A2A_PUSH_OUTBOX = "a2a/push-outbox/";
export const a2aPushOutboxPrefix = (sessionId: string, turnId?: string, configId?: string): string =>
  `${A2A_PUSH_OUTBOX}${sessionId}/${turnId === undefined ? "" : `${turnId}/${configId === undefined ? "" : `${configId}/`}`}`;
export const a2aPushOutboxKey = (sessionId: string, turnId: string, configId: string, index: number, position: number): string =>
  `${a2aPushOutboxPrefix(sessionId, turnId, configId)}${String(index).padStart(12, "0")}.${position}`;
/** A config whose receiver never answered within the retry schedule: what was dropped, and why. */
export const a2aPushFailedPrefix = (sessionId: string): string => `a2a/push-failed/${sessionId}/`;
export const a2aPushFailedKey = (sessionId: string, turnId: string, configId: string): string => `${a2aPushFailedPrefix(sessionId)}${turnId}/${configId}`;
/** The lease of the one process posting a config's outbox at a time. */
export const a2aPushSenderLeaseKey = (sessionId: string, turnId: string, configId: string): string => `a2a/push-senders/${sessionId}/${turnId}/${configId}`;
/** An MCP tool call run as a task, and the lease its runner holds (docs/design/mcp-tool-tasks.md). */
export const MCP_TOOL_TASK_PREFIX = "mcp/tasks/";
export const mcpToolTaskKey = (taskId: string): string => `${MCP_TOOL_TASK_PREFIX}${taskId}`;
export const mcpToolTaskLeaseKey = (taskId: string): string => `mcp/task-runners/${taskId}`;
/** A2A's task index of a session: each task's state, and how far the log was folded (docs/design/a2a-tasks.md). */
export const a2aTaskIndexKey = (sessionId: string): string => `a2a/task-index/${sessionId}`;
/** Webhook deliveries that failed after their last retry, per endpoint (docs/guide/webhooks.md). */
export const WEBHOOK_FAILURES_PREFIX = "webhooks/failed/";
export const webhookFailureKey = (endpointId: string, deliveryId: string): string => `${WEBHOOK_FAILURES_PREFIX}${endpointId}/${deliveryId}`;
/** The channel-delivery id an endpoint's cursor lives under (`channels/<id>/delivered/<sessionId>`). */
export const webhookDeliveryChannel = (endpointId: string): string => `_webhook-${endpointId}`;
/** The OAuth tokens of an MCP connection (docs/guide/mcp.md "Connections that need OAuth"). */
export const MCP_OAUTH_PREFIX = "mcp-oauth/";
export const mcpOAuthKey = (connection: string): string => `${MCP_OAUTH_PREFIX}${connection}`;
/**
 * Budget usage (docs/design/budgets.md "Records"), every scope under `budgets/`, so one commit
 * can compare-and-set a call's scopes together on every store (on Workers they share the
 * coordinator, docs/design/cloudflare.md "Storage"): a session's turn and session records (removed
 * with the session), and one record per UTC day (`YYYY-MM-DD`) per principal and for the agent.
 */
export const turnBudgetKey = (sessionId: string): string => `budgets/sessions/${sessionId}/turn`;
export const sessionBudgetKey = (sessionId: string): string => `budgets/sessions/${sessionId}/session`;
export const principalBudgetKey = (principalId: string, day: string): string => `budgets/principals/${encodeSegment(principalId)}/${day}`;
export const agentBudgetKey = (day: string): string => `budgets/agent/${day}`;
/** The default prefix of `ctx.host.kv` keys. */
export const KV_STORAGE_PREFIX = "kv";

/** Every log a session has: what a copy of the store carries over beside the records. */
export const sessionLogNames = (sessionId: string): string[] => [eventLogName(sessionId), conversationLogName(sessionId), approvalDecisionsLogName(sessionId)];
/** The session a session record key names, or undefined for any other key. */
export function sessionIdOfRecordKey(key: string): string | undefined {
  const match = /^sessions\/([^/]+)\/record$/.exec(key);
  return match && sessionRecordKey(match[1]!) === key ? match[1] : undefined;
}
/**
 * Records that coordinate the processes running now (the turn-slot cap's holders and queue):
 * meaningless to another store, so a copy leaves them behind, as it leaves leases and inboxes.
 */
export const PROCESS_STATE_PREFIXES: readonly string[] = [TURN_SLOTS_PREFIX];

// --- internals ---

/** The largest time an index position orders (the year 2286): every ISO time the host writes is below it. */
const RECENCY_MAX = 9_999_999_999_999;

/**
 * A principal's index segment: its base64url form, or for a long id a hash of it with a prefix of
 * that form, so the key stays within the port's 512 characters. Two principals sharing a segment
 * only share an index; the listing still checks each entry's owner.
 */
function ownerSegment(principalId: string): string {
  const encoded = encodeSegment(principalId);
  if (encoded.length <= 200) return `p${encoded}`;
  let hash = 0x811c9dc5;
  for (let i = 0; i < principalId.length; i++) hash = Math.imul(hash ^ principalId.charCodeAt(i), 0x01000193) >>> 0;
  return `h${hash.toString(16).padStart(8, "0")}${encoded.slice(0, 160)}`;
}

/** Channel tokens are free-form (`pr:owner/repo#1`); base64url makes them one safe key segment. */
function encodeSegment(token: string): string {
  const bytes = new TextEncoder().encode(token);
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replaceAll("+", "-").replaceAll("/", "_").replaceAll("=", "");
}
