/**
 * The placement strategy of processes sharing one store (docs/design/processes.md "Forwarding"):
 * every session lives in the store, and its turn runs in the process holding its lease. A
 * follow-up or stop the lease refuses here is sent to that process and answered there as if it
 * had been asked there; when that process is gone (its lease expired), the session is recovered
 * and the operation runs here.
 * @module
 */
import type { AuthContext } from "../../base/auth.ts";
import type { PlacedCall } from "../../base/definitions/placement.ts";
import type { FollowUpInput } from "../../base/definitions/sessions.ts";
import type { LocalSessions } from "./local-sessions.ts";
import { isBusyRefusal } from "./session-errors.ts";
import { WrappedSessions } from "./wrapped-sessions.ts";

/** How a request reaches a session whose turn runs in another process sharing the store. */
export interface ProcessCoordination {
  /**
   * The process running the session's turn, when that is another process (its active marker
   * names it and no turn of it is live here).
   */
  runningElsewhere(sessionId: string): Promise<string | undefined>;
  /** Asks the process `owner` to answer `call` for the session; resolves with its answer. */
  forward(owner: string, sessionId: string, call: PlacedCall): Promise<unknown>;
  /**
   * Recovers the session when the process its marker names (`owner`) let its turn lease expire;
   * true when the lease was free (the session is this process's to take), false while held.
   */
  recoverIfOrphaned(sessionId: string, owner: string): Promise<boolean>;
}

export class ForwardedSessions extends WrappedSessions {
  readonly #coordination: ProcessCoordination;

  constructor(local: LocalSessions, coordination: ProcessCoordination) {
    super(local);
    this.#coordination = coordination;
  }

  /**
   * A follow-up the lease refuses here goes to the process running the turn, admitted there
   * under the same policy.
   */
  override async followUp(sessionId: string, input: FollowUpInput): Promise<string> {
    try {
      return await this.local.followUp(sessionId, input);
    } catch (error) {
      const owner = isBusyRefusal(error) ? await this.#coordination.runningElsewhere(sessionId) : undefined;
      if (owner === undefined) throw error;
      if (await this.#coordination.recoverIfOrphaned(sessionId, owner)) return this.local.followUp(sessionId, input);
      return (await this.#coordination.forward(owner, sessionId, { op: "followUp", input })) as string;
    }
  }

  /** A turn run by another process is stopped there (forwarded, like a follow-up). */
  override async stop(sessionId: string, auth: AuthContext): Promise<boolean> {
    if (await this.local.stopLive(sessionId, auth)) return true;
    const owner = await this.#coordination.runningElsewhere(sessionId);
    if (owner !== undefined) {
      if (!(await this.#coordination.recoverIfOrphaned(sessionId, owner))) {
        return (await this.#coordination.forward(owner, sessionId, { op: "stop", auth })) === true;
      }
      // Recovered here: a parked turn the recovery resumed here is stopped like any other.
      if (await this.local.interrupt(sessionId)) return true;
    }
    return this.local.stopParked(sessionId);
  }
}
