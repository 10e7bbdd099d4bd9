/**
 * Parked tool calls in storage (docs/design/tools.md "Approvals"): one record per call, so every
 * process sharing the store lists them, resolves them exactly once, and a turn parked before a
 * restart finds its call (and any decision made meanwhile) when it resumes.
 *
 * A record goes `pending` → `decided` (the human's decision, by compare-and-set: one resolver
 * wins) → `closed` (the turn recorded `action.approval_resolved`), or `pending` → `closed` (the
 * turn ended first: stop, preempt, failure). Closed records stay, so a late resolution is told
 * 409 rather than 404.
 * @module
 */
import { turnSuspended } from "../../base/abort.ts";
import type { JsonValue } from "../../base/ports/model.ts";
import type { RecordWrite, StorageDriver } from "../../base/storage/types.ts";
import { RecordConflictError } from "../../base/storage/types.ts";
import { approvalDecisionsLogName as decisionsLog, approvalsPrefix as prefix } from "../../base/storage/keys.ts";

export type Decision = "approve" | "deny";

/** A parked call as `GET /v1/session/:id/approvals` lists it. */
export interface ApprovalView {
  callId: string;
  toolName: string;
  input: unknown;
  turnId: string;
  requestedAt: string;
}

export interface ApprovalRecord extends ApprovalView {
  status: "pending" | "decided" | "closed";
  decision?: Decision;
  decidedAt?: string;
  /**
   * `client`: a call of a tool the front end runs (docs/guide/ag-ui.md "Front-end tools"), parked
   * the same way but settled with the front end's result instead of a decision. Absent: an approval.
   */
  kind?: "client";
  /** A client call's result, as the front end delivered it. */
  result?: ClientResult;
}

/** What a front end's tool returned for a client call. */
export interface ClientResult {
  output: JsonValue;
  isError: boolean;
}

export type ResolveOutcome = "resolved" | "unknown" | "closed";

/** How often a waiting turn re-reads its record when the driver's follow is process-local. */
const POLL_MS = 250;

export class ApprovalStore {
  readonly #storage: StorageDriver;
  readonly #now: () => number;
  readonly #pollMs: number;
  /** Turns waiting here for a decision: the host closing suspends them. */
  readonly #waiters = new Set<() => void>();
  #suspended = false;

  constructor(storage: StorageDriver, now: () => number, options: { pollMs?: number } = {}) {
    this.#storage = storage;
    this.#now = now;
    this.#pollMs = options.pollMs ?? POLL_MS;
  }

  async get(sessionId: string, callId: string): Promise<ApprovalRecord | undefined> {
    const key = approvalKey(sessionId, callId);
    return key === undefined ? undefined : parse(await this.#storage.get(key));
  }

  /** The pending record of a newly parked call, to commit with `action.approval_requested`. */
  parkWrite(sessionId: string, view: ApprovalView, kind?: "client"): RecordWrite {
    const record: ApprovalRecord = { ...view, status: "pending", ...(kind ? { kind } : {}) };
    return { key: requireKey(sessionId, view.callId), value: JSON.stringify(record) };
  }

  /** Calls waiting for a decision, oldest first. */
  async list(sessionId: string): Promise<ApprovalView[]> {
    return this.#pending(sessionId, undefined);
  }

  /** Client calls waiting for the front end's result, oldest first. */
  async listClient(sessionId: string): Promise<ApprovalView[]> {
    return this.#pending(sessionId, "client");
  }

  async #pending(sessionId: string, kind: "client" | undefined): Promise<ApprovalView[]> {
    return (await this.open(sessionId))
      .filter((record) => record.status === "pending" && record.kind === kind)
      .map(({ callId, toolName, input, turnId, requestedAt }) => ({ callId, toolName, input, turnId, requestedAt }));
  }

  /** Records not closed yet: pending, or decided and not yet taken up by their turn. */
  async open(sessionId: string): Promise<ApprovalRecord[]> {
    const records: ApprovalRecord[] = [];
    for (const [, raw] of await this.#storage.entries(prefix(sessionId))) {
      const record = parse(raw);
      if (record && record.status !== "closed") records.push(record);
    }
    return records.sort((a, b) => a.requestedAt.localeCompare(b.requestedAt));
  }

  /**
   * Records the decision if the call is still pending: a compare-and-set on its record, so of two
   * resolutions racing (in any processes) exactly one is `resolved` and the other `closed`. The
   * commit also appends to the session's decisions log, which wakes the waiting turn.
   */
  async resolve(sessionId: string, callId: string, decision: Decision): Promise<ResolveOutcome> {
    return this.#settle(sessionId, callId, undefined, { decision });
  }

  /** Records a client call's result, exactly once, as `resolve` records a decision. */
  async deliver(sessionId: string, callId: string, result: ClientResult): Promise<ResolveOutcome> {
    return this.#settle(sessionId, callId, "client", { decision: "approve", result });
  }

  async #settle(sessionId: string, callId: string, kind: "client" | undefined, patch: Pick<ApprovalRecord, "decision" | "result">): Promise<ResolveOutcome> {
    const key = approvalKey(sessionId, callId);
    if (key === undefined) return "unknown";
    const raw = await this.#storage.get(key);
    const record = parse(raw);
    // A decision never settles a client call, nor a result an approval.
    if (!record || record.kind !== kind) return "unknown";
    if (record.status !== "pending") return "closed";
    const decision = patch.decision ?? "deny";
    const decided: ApprovalRecord = { ...record, ...patch, status: "decided", decidedAt: new Date(this.#now()).toISOString() };
    try {
      await this.#storage.commit({
        records: [{ key, value: JSON.stringify(decided), expected: raw ?? null }],
        appends: [{ log: decisionsLog(sessionId), lines: [JSON.stringify({ callId, decision })] }],
      });
    } catch (error) {
      if (RecordConflictError.isError(error)) return "closed";
      throw error;
    }
    return "resolved";
  }

  /**
   * Waits for the call's decision, learnt from storage: the decisions log's followers (every
   * process with a shared driver) and, for process-local drivers, a periodic re-read of the
   * record. Rejects with the signal's reason when the turn is stopped, and with a
   * `TurnSuspended` error when the host closes (the call stays parked in storage).
   */
  wait(sessionId: string, callId: string, signal: AbortSignal): Promise<ApprovalRecord> {
    if (this.#suspended) return Promise.reject(turnSuspended());
    const key = requireKey(sessionId, callId);
    return new Promise<ApprovalRecord>((resolve, reject) => {
      let done = false;
      const finish = (settle: () => void): void => {
        if (done) return;
        done = true;
        unfollow();
        clearInterval(timer);
        signal.removeEventListener("abort", onAbort);
        this.#waiters.delete(onSuspend);
        settle();
      };
      const check = (): void => {
        this.#storage.get(key).then(
          (raw) => {
            const record = parse(raw);
            if (record?.status === "decided") finish(() => resolve(record));
            else if (record?.status !== "pending") finish(() => reject(new Error("the parked call was closed")));
          },
          // A failed read is retried on the next notification or poll.
          () => {},
        );
      };
      const onAbort = (): void => finish(() => reject(signal.reason));
      const onSuspend = (): void => finish(() => reject(turnSuspended()));
      const unfollow = this.#storage.follow(decisionsLog(sessionId), check);
      const timer = setInterval(check, this.#storage.capabilities.follow === "shared" ? this.#pollMs * 30 : this.#pollMs);
      (timer as { unref?: () => void }).unref?.();
      this.#waiters.add(onSuspend);
      if (signal.aborted) onAbort();
      else signal.addEventListener("abort", onAbort, { once: true });
      check();
    });
  }

  /**
   * The turn ended while the call waited: closes it, unless a decision landed first, which is
   * returned so the turn can still record it.
   */
  async abandon(sessionId: string, callId: string): Promise<ApprovalRecord | undefined> {
    const key = requireKey(sessionId, callId);
    const raw = await this.#storage.get(key);
    const record = parse(raw);
    if (!record || record.status === "closed") return undefined;
    if (record.status === "decided") return record;
    try {
      await this.#storage.commit({ records: [{ key, value: JSON.stringify({ ...record, status: "closed" }), expected: raw ?? null }] });
      return undefined;
    } catch (error) {
      if (!RecordConflictError.isError(error)) throw error;
      const now = await this.get(sessionId, callId);
      return now?.status === "decided" ? now : undefined;
    }
  }

  /** Closes a decided call, to commit with its `action.approval_resolved`. */
  closeWrite(sessionId: string, record: ApprovalRecord): RecordWrite {
    return { key: requireKey(sessionId, record.callId), value: JSON.stringify({ ...record, status: "closed" }) };
  }

  /** Closes every open call of the session (its turn was failed by recovery). */
  async closeAll(sessionId: string): Promise<void> {
    await this.close(sessionId, await this.open(sessionId));
  }

  /** Closes these calls, in one commit. */
  async close(sessionId: string, records: ApprovalRecord[]): Promise<void> {
    if (records.length === 0) return;
    await this.#storage.commit({ records: records.map((record) => this.closeWrite(sessionId, record)) });
  }

  /** How many turns wait here for a decision now. */
  get waiting(): number {
    return this.#waiters.size;
  }

  /** The host is closing: every waiting turn (and any that parks from now on) is suspended. */
  suspend(): void {
    this.#suspended = true;
    for (const onSuspend of this.#waiters) onSuspend();
  }

  /** What removing the session removes: its approval records and decisions log. */
  async removal(sessionId: string): Promise<{ keys: string[]; logs: string[] }> {
    return { keys: await this.#storage.list(prefix(sessionId)), logs: [decisionsLog(sessionId)] };
  }
}

// --- internals ---


/** Storage keys allow `[A-Za-z0-9_.-]` segments; call ids come from the model, so they are encoded. */
function approvalKey(sessionId: string, callId: string): string | undefined {
  if (typeof callId !== "string" || callId.length === 0 || callId.length > 300) return undefined;
  if (!/^[A-Za-z0-9_-]+$/.test(sessionId)) return undefined;
  return `${prefix(sessionId)}${encodeSegment(callId)}`;
}

function requireKey(sessionId: string, callId: string): string {
  const key = approvalKey(sessionId, callId);
  if (key === undefined) throw new Error(`[agent-serve] [approvals] cannot park call ${JSON.stringify(callId.slice(0, 80))}`);
  return key;
}

function encodeSegment(text: string): string {
  let binary = "";
  for (const byte of new TextEncoder().encode(text)) binary += String.fromCharCode(byte);
  return `c${btoa(binary).replaceAll("+", "-").replaceAll("/", "_").replaceAll("=", "")}`;
}

function parse(raw: string | undefined): ApprovalRecord | undefined {
  if (raw === undefined) return undefined;
  try {
    return JSON.parse(raw) as ApprovalRecord;
  } catch {
    return undefined;
  }
}
