/**
 * What the A2A feature reaches of an agent: the session face, the event log view and the
 * approval decision, nothing of the engine's classes (docs/design/architecture.md "The engine's face").
 * @module
 */
import type { AuthContext } from "../../base/auth.ts";
import type { Sessions } from "../../base/definitions/session-face.ts";
import type { SessionRecord } from "../../base/definitions/sessions.ts";
import type { TagInput } from "../../base/definitions/artifacts.ts";
import { HTTPError } from "../../base/errors.ts";
import type { EventLogView } from "../../base/events/log-view.ts";
import type { StorageDriver } from "../../base/storage/types.ts";
import { taskNotFound } from "./errors.ts";
import type { PushConfig } from "./push-configs.ts";
import type { ResolveHost } from "./push-target.ts";

/**
 * The channel A2A sessions are opened on: a context is one of its sessions. It starts with `_`,
 * which no project channel id may (docs/guide/channels.md "Schema rules"), so a project's own
 * `bot/channels/a2a.ts` never shares its sessions or events.
 */
export const A2A_CHANNEL = "_a2a";

export interface A2AAgent {
  sessions: Sessions;
  log: EventLogView;
  /** Decides a parked call (the approval service's `resolve`). */
  approvals: { resolve(sessionId: string, callId: string, decision: "approve" | "deny"): Promise<unknown> };
  /** Where push notification configs are kept (keys from ../../base/storage/keys.ts). */
  storage: Pick<StorageDriver, "get" | "set" | "delete" | "list">;
  /**
   * Push notifications may target loopback and private addresses: under `--dev`, or when
   * `bot/agent.ts` allows it (`a2a.allowPrivatePushTargets`).
   */
  allowPrivatePush: boolean;
  /** The runtime's resolver: push targets named by a host name are judged by their addresses. */
  resolveHost?: ResolveHost;
  /** Writes the updates a task made before its inline push config was stored (./push-delivery.ts). */
  catchUpPush?(config: PushConfig): Promise<void>;
  /**
   * Where file parts are kept (the agent's artifact store, kind `attachment`); absent when the
   * agent declares artifact kinds without `attachment`, and file parts are then refused.
   */
  attachments?: { tag(input: TagInput): Promise<unknown> };
  /** The extended agent card, when `bot/agent.ts` declares one (`a2a.extendedSkills`). */
  extendedCard(): Record<string, unknown> | undefined;
}

/**
 * The A2A session `sessionId` if `auth` created it: anything else (absent, another principal's,
 * a session opened on another channel) is not found, so task ids reveal nothing.
 */
export async function ownedContext(agent: A2AAgent, sessionId: string, auth: AuthContext, asked: string): Promise<SessionRecord> {
  let record: SessionRecord;
  try {
    record = await agent.sessions.owned(sessionId, auth);
  } catch (error) {
    if (HTTPError.isError(error) && (error.status === 403 || error.status === 404)) throw taskNotFound(asked);
    throw error;
  }
  if (record.channel !== A2A_CHANNEL) throw taskNotFound(asked);
  return record;
}
