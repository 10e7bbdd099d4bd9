/**
 * Where the agent's sessions live, chosen once: the placement strategy wrapped around the local
 * session service, and the one receiving end for what other processes and hosts send here.
 *
 * - one process (or a store no other process reaches): the local service itself;
 * - processes sharing a store: follow-ups and stops the lease refuses are forwarded to the lease
 *   holder through its inbox (docs/design/processes.md "Forwarding");
 * - sessions in hosts of their own (Workers): what concerns a session not held here is sent to
 *   its host (docs/design/cloudflare.md "Where turns run").
 * @module
 */
import { HTTPError } from "../base/errors.ts";
import { newSessionId } from "../base/ids.ts";
import { livesHere, type PlacedCall } from "../base/definitions/placement.ts";
import type { Sessions } from "../base/definitions/session-face.ts";
import type { StorageDriver } from "../base/storage/types.ts";
import { ForwardedSessions } from "../engine/sessions/forwarded-sessions.ts";
import { createInbound, type Inbound } from "../engine/sessions/inbound.ts";
import type { LocalSessions } from "../engine/sessions/local-sessions.ts";
import { PlacedSessions } from "../engine/sessions/placed-sessions.ts";
import { ProcessInbox } from "../engine/sessions/process-inbox.ts";
import type { SessionStore } from "../engine/sessions/session-store.ts";
import type { TurnController } from "../engine/sessions/turn-controller.ts";
import type { Coordination } from "./coordination.ts";
import type { AgentRecovery } from "./recovery.ts";

/** The least time a request forwarded to the process running a session's turn gets to answer. */
const FORWARD_TIMEOUT_MS = 10_000;
/** The operations one process forwards to another (docs/design/processes.md "Forwarding"). */
const FORWARDED_OPS = new Set<PlacedCall["op"]>(["followUp", "stop"]);

export interface PlacedSessionParts {
  slug: string;
  storage: StorageDriver;
  store: SessionStore;
  controller: TurnController;
  local: LocalSessions;
  coordination: Coordination;
  recovery: AgentRecovery;
  /** A direct tool call inside a session held here, run by the agent's tools over `sessions`. */
  callTool(sessions: Sessions, sessionId: string, call: Extract<PlacedCall, { op: "callTool" }>): Promise<unknown>;
}

export interface SessionPlacing {
  /** The face the rest of the agent uses. */
  sessions: Sessions;
  /** Answers what another host sent for a session that lives here. */
  answer: Inbound;
  /** Continues a session's parked turn in the host it lives in (a decision made anywhere). */
  resume(sessionId: string): Promise<unknown>;
  /** The process inbox forwarded calls arrive in, where other processes run the agent's turns. */
  inbox?: ProcessInbox;
}

export function placeSessions(parts: PlacedSessionParts): SessionPlacing {
  const { local, coordination, slug } = parts;
  const { placement, leases } = coordination;
  let inbox: ProcessInbox | undefined;
  let sessions: Sessions = local;
  if (placement) {
    sessions = new PlacedSessions(local, {
      isHere: (sessionId) => livesHere(placement, sessionId),
      send: (sessionId, call) => placement.send(slug, sessionId, call),
      newSessionId: placement.newSessionId ?? newSessionId,
    });
  } else if (coordination.crossProcess) {
    const owned = new ProcessInbox(parts.storage, leases.owner, (request) => {
      const { sessionId, call } = (request.args ?? {}) as Partial<ForwardedArgs>;
      // Only what the forwarding strategy sends: a follow-up or a stop the holder's lease refused.
      if (sessionId === undefined || call === undefined || call.op !== request.op || !FORWARDED_OPS.has(call.op)) {
        return Promise.reject(new HTTPError({ status: 400, code: "invalid_request", message: `unknown forwarded operation ${request.op}` }));
      }
      return answer(sessionId, call);
    }, () => parts.controller.unsettled > 0);
    inbox = owned;
    sessions = new ForwardedSessions(local, {
      // Not while a turn of it is live here: then it runs here.
      runningElsewhere: async (sessionId) => {
        if (parts.controller.isBusy(sessionId)) return undefined;
        const owner = await parts.store.activeTurn(sessionId);
        return owner !== undefined && owner !== leases.owner ? owner : undefined;
      },
      // A forwarded preempt waits for the running turn to settle; past a lease ttl its process is gone.
      forward: (owner, sessionId, call) =>
        owned.request(owner, { op: call.op, args: { sessionId, call } satisfies ForwardedArgs }, Math.max(leases.ttlMs, FORWARD_TIMEOUT_MS)),
      recoverIfOrphaned: (sessionId, owner) => parts.recovery.recoverIfOrphaned(sessionId, owner),
    });
  }
  const face = sessions;
  const answer = createInbound({
    local,
    ...(placement ? { accepts: (sessionId: string) => livesHere(placement, sessionId) } : {}),
    callTool: (sessionId, call) => parts.callTool(face, sessionId, call),
  });
  return {
    sessions: face,
    answer,
    resume: (sessionId) => (face.isHere(sessionId) ? local.resumeParked(sessionId) : face.sendToHome(sessionId, { op: "resume" })),
    ...(inbox ? { inbox } : {}),
  };
}

/** A forwarded request's arguments on the inbox log (docs/design/processes.md "Forwarding"). */
interface ForwardedArgs {
  sessionId: string;
  call: PlacedCall;
}
