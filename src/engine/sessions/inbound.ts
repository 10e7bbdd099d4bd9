/**
 * The one receiving end of the placement strategies: what another process forwarded here
 * (docs/design/processes.md "Forwarding") and what another host sent for a session that lives here
 * (docs/design/cloudflare.md "Where turns run") are both answered by the local service, as if
 * asked here. A call answered here is never sent on again.
 * @module
 */
import type { PlacedCall } from "../../base/definitions/placement.ts";
import type { LocalSessions } from "./local-sessions.ts";

/** Answers one call for one session. */
export type Inbound = (sessionId: string, call: PlacedCall) => Promise<unknown>;

export interface InboundDeps {
  local: LocalSessions;
  /** Whether the session is this host's to answer for (a placed host holds one session). */
  accepts?: (sessionId: string) => boolean;
  /** A direct call of a server tool inside the session; the host's tools answer it. */
  callTool: (sessionId: string, call: Extract<PlacedCall, { op: "callTool" }>) => Promise<unknown>;
}

export function createInbound(deps: InboundDeps): Inbound {
  const { local } = deps;
  return (sessionId, call) => {
    // A tool call is the host's to answer, like one made here (../direct-calls/direct-call.ts).
    if (call.op === "callTool") return deps.callTool(sessionId, call);
    if (deps.accepts && !deps.accepts(sessionId)) {
      return Promise.reject(new Error(`[agent-serve] [sessions] session ${sessionId} does not live in this host`));
    }
    switch (call.op) {
      case "create":
        return local.createAs(sessionId, call.input);
      case "fork":
        return local.forkAs(sessionId, call.sourceSessionId, call.input);
      case "followUp":
        return local.followUp(sessionId, call.input);
      case "stop":
        return local.stop(sessionId, call.auth);
      case "interrupt":
        return local.interrupt(sessionId);
      case "resume":
        return local.resumeParked(sessionId);
      case "remove":
        return local.remove(sessionId, call.auth);
      case "rename":
        return local.rename(sessionId, call.title, call.auth);
      case "emitMessage":
        return local.emitMessage(sessionId, call.text);
    }
  };
}
