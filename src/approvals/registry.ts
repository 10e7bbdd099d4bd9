/**
 * Parked tool calls waiting for a human decision (docs/design/tools.md "Approvals"). They live in
 * memory only: parked approvals do not survive a restart (the turn is failed by recovery instead).
 * @module
 */

export type Decision = "approve" | "deny";

export interface ApprovalView {
  callId: string;
  toolName: string;
  input: unknown;
  turnId: string;
  requestedAt: string;
}

interface Parked extends ApprovalView {
  decide(decision: Decision): void;
}

/** Closed call ids remembered per session so a late second resolution gets 409, not 404. */
const MAX_CLOSED_PER_SESSION = 1000;

export class ApprovalRegistry {
  readonly #parked = new Map<string, Map<string, Parked>>();
  readonly #closed = new Map<string, Set<string>>();

  /**
   * Parks a call until it is resolved. Rejects with the signal's reason when the turn is stopped,
   * preempted or shut down; the call then counts as closed.
   */
  park(sessionId: string, view: ApprovalView, signal: AbortSignal): Promise<Decision> {
    return new Promise<Decision>((resolve, reject) => {
      const calls = this.#parked.get(sessionId) ?? new Map<string, Parked>();
      this.#parked.set(sessionId, calls);
      const onAbort = (): void => {
        this.#close(sessionId, view.callId);
        reject(signal.reason);
      };
      calls.set(view.callId, {
        ...view,
        decide: (decision) => {
          signal.removeEventListener("abort", onAbort);
          this.#close(sessionId, view.callId);
          resolve(decision);
        },
      });
      if (signal.aborted) onAbort();
      else signal.addEventListener("abort", onAbort, { once: true });
    });
  }

  list(sessionId: string): ApprovalView[] {
    return [...(this.#parked.get(sessionId)?.values() ?? [])].map(({ callId, toolName, input, turnId, requestedAt }) => ({
      callId,
      toolName,
      input,
      turnId,
      requestedAt,
    }));
  }

  /** Resolves a parked call exactly once. */
  resolve(sessionId: string, callId: string, decision: Decision): "resolved" | "unknown" | "closed" {
    const parked = this.#parked.get(sessionId)?.get(callId);
    if (parked) {
      parked.decide(decision);
      return "resolved";
    }
    return this.#closed.get(sessionId)?.has(callId) ? "closed" : "unknown";
  }

  // --- internals ---

  #close(sessionId: string, callId: string): void {
    const calls = this.#parked.get(sessionId);
    calls?.delete(callId);
    if (calls?.size === 0) this.#parked.delete(sessionId);
    const closed = this.#closed.get(sessionId) ?? new Set<string>();
    this.#closed.set(sessionId, closed);
    closed.add(callId);
    if (closed.size > MAX_CLOSED_PER_SESSION) closed.delete(closed.values().next().value as string);
  }
}
