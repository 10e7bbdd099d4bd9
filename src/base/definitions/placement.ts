/**
 * Where sessions live when each one has a home of its own (docs/design/cloudflare.md "Where turns
 * run"): on Workers every session's turns, parked calls and live state are in that session's
 * Durable Object. A host that does not hold a session sends what would change it (create,
 * follow-up, stop, rename, removal) to the host that does, and answers with that host's answer;
 * reads go through storage as everywhere else. Without a placement every session lives here.
 * @module
 */
import type { AuthContext } from "../auth.ts";
import type { CreateSessionInput, FollowUpInput, ForkSessionInput } from "./sessions.ts";

export interface SessionPlacement {
  /** The one session this host holds; undefined for a host that holds none (it sends all away). */
  session?: string;
  /**
   * Runs `call` in the host session `sessionId` lives in and resolves with its answer; that host's
   * refusals arrive as the same `HTTPError`s.
   */
  send(slug: string, sessionId: string, call: PlacedCall): Promise<unknown>;
  /**
   * The owner this host takes leases and turn slots as. A session's host keeps one across
   * restarts, so a new instance knows what its dead predecessor held (a Durable Object runs once).
   */
  owner?: string;
  /**
   * Picks the id of each new session: the Workers adapter names a session after the Durable
   * Object that will hold it (docs/design/cloudflare.md). @default `ses_`, 8 characters of the
   * creation time and 12 random ones (`newSessionId`)
   */
  newSessionId?: () => string;
}

/**
 * What one host or process asks of the one where a session lives or runs its turn: the placed
 * calls between hosts, and the forwarded ones between processes sharing a store
 * (docs/design/processes.md "Forwarding"), answered by one dispatcher.
 */
export type PlacedCall =
  | { op: "create"; input: CreateSessionInput }
  /** A fork of `sourceSessionId`, created in the host the new session lives in. */
  | { op: "fork"; sourceSessionId: string; input: ForkSessionInput }
  | { op: "followUp"; input: FollowUpInput }
  | { op: "stop"; auth: AuthContext }
  | { op: "interrupt" }
  /** A parked call of the session was decided elsewhere: continue its turn if nothing runs it. */
  | { op: "resume" }
  | { op: "remove"; auth: AuthContext }
  | { op: "rename"; title: string; auth: AuthContext }
  /** A finished assistant message a channel appends, with no model turn (`emitAssistantMessage`). */
  | { op: "emitMessage"; text: string }
  /** A direct call of a server tool inside the session (recorded on its stream, like a turn's). */
  | { op: "callTool"; toolName: string; input: unknown; auth: AuthContext };

/** Whether `sessionId` lives in the host with this placement (always, without one). */
export function livesHere(placement: SessionPlacement | undefined, sessionId: string): boolean {
  return placement === undefined || placement.session === sessionId;
}
