/**
 * What every resolution path shares (HTTP, channels' `resolveApproval`, the playground through
 * HTTP): the exactly-once decision in storage, the spec's errors, and taking over a parked turn no
 * process runs any more (docs/design/tools.md "Approvals").
 * @module
 */
import { conflict, notFound } from "../../base/errors.ts";
import type { HostLogger } from "../../base/logging.ts";
import type { ApprovalStore, ApprovalView, ClientResult, Decision } from "./approval-store.ts";

export class ApprovalService {
  readonly #store: ApprovalStore;
  readonly #resumeIfOrphaned: (sessionId: string) => Promise<unknown>;
  readonly #logger: HostLogger;

  constructor(deps: { store: ApprovalStore; resumeIfOrphaned: (sessionId: string) => Promise<unknown>; logger: HostLogger }) {
    this.#store = deps.store;
    this.#resumeIfOrphaned = deps.resumeIfOrphaned;
    this.#logger = deps.logger;
  }

  /** Calls of the session waiting for a decision, from storage (any process's). */
  list(sessionId: string): Promise<ApprovalView[]> {
    return this.#store.list(sessionId);
  }

  /**
   * Records the decision once: 404 `approval_not_found` for a call never parked in the session,
   * 409 `approval_already_resolved` once it was resolved or its turn ended. Resolves when the
   * decision is durable; the turn takes it up from storage.
   */
  async resolve(sessionId: string, callId: string, decision: Decision): Promise<void> {
    const outcome = await this.#store.resolve(sessionId, callId, decision);
    if (outcome === "unknown") throw notFound("approval_not_found", "no tool call with that id is parked in this session");
    if (outcome === "closed") throw conflict("approval_already_resolved", "the call was already resolved or its turn has ended");
    this.#resume(sessionId);
  }

  /** Client calls of the session waiting for the front end's result (docs/guide/ag-ui.md "Front-end tools"). */
  listClient(sessionId: string): Promise<ApprovalView[]> {
    return this.#store.listClient(sessionId);
  }

  /**
   * Delivers a client call's result once: 404 `tool_call_not_found` for a call not waiting on
   * the front end, 409 `tool_result_already_delivered` once it was settled or its turn ended.
   */
  async deliver(sessionId: string, callId: string, result: ClientResult): Promise<void> {
    const outcome = await this.#store.deliver(sessionId, callId, result);
    if (outcome === "unknown") throw notFound("tool_call_not_found", "no front-end tool call with that id waits in this session");
    if (outcome === "closed") throw conflict("tool_result_already_delivered", "the call's result was already delivered or its turn has ended");
    this.#resume(sessionId);
  }

  #resume(sessionId: string): void {
    void this.#resumeIfOrphaned(sessionId).catch((error: unknown) => this.#logger.error(`could not resume the parked turn of ${sessionId}`, error));
  }
}
