/**
 * An agent's budgets (docs/guide/budgets.md): which scope windows a call or a send counts toward,
 * the check before a send (429 `budget_exceeded` while a limit is used up), the per-turn meters
 * the model calls go through (./turn-meter.ts), and usage against each limit for the cost report.
 * @module
 */
import type { BudgetReport, BudgetScope, BudgetScopeReport, BudgetsConfig } from "../../base/definitions/budgets.ts";
import type { SessionRecord } from "../../base/definitions/sessions.ts";
import { HTTPError } from "../../base/errors.ts";
import type { Usage } from "../../base/ports/model.ts";
import { agentBudgetKey, principalBudgetKey, sessionBudgetKey, turnBudgetKey } from "../../base/storage/keys.ts";
import type { StorageDriver } from "../../base/storage/types.ts";
import { type ScopeRef, exceededLimits, firstExceeded, heldOf, readRecord } from "./ledger.ts";
import { pruneDays } from "./prune.ts";
import { type TurnMeterHandle, TurnMeter } from "./turn-meter.ts";
import { nextUtcMidnight, utcDay } from "./windows.ts";

export interface BudgetGateOptions {
  storage: StorageDriver;
  budgets: BudgetsConfig;
  /** USD of `usage` on the model `modelId`, or null when the model has no price. */
  costOf: (modelId: string, usage: Usage) => number | null;
  now: () => number;
  /** What `costOf` needs loaded first (the price catalog); the first metered call waits for it. */
  ready?: Promise<void>;
}

/** Who a call or a send counts toward. */
export interface BudgetSubject {
  sessionId?: string;
  principalId: string;
  turnId?: string;
}

export class BudgetGate {
  readonly options: BudgetGateOptions;
  /** The UTC day whose past records this process last pruned. */
  #prunedDay: string | undefined;

  constructor(options: BudgetGateOptions) {
    this.options = options;
  }

  /** The scope windows with limits that `subject` counts toward at `at`. */
  refs(subject: BudgetSubject, at: number): ScopeRef[] {
    const { budgets } = this.options;
    const refs: ScopeRef[] = [];
    const { sessionId, turnId } = subject;
    if (budgets.turn && sessionId !== undefined && turnId !== undefined) refs.push({ scope: "turn", key: turnBudgetKey(sessionId), limits: budgets.turn, turnId });
    if (budgets.session && sessionId !== undefined) refs.push({ scope: "session", key: sessionBudgetKey(sessionId), limits: budgets.session });
    const day = utcDay(at);
    const resetsAt = nextUtcMidnight(at);
    if (budgets.principalPerDay) refs.push({ scope: "principalPerDay", key: principalBudgetKey(subject.principalId, day), limits: budgets.principalPerDay, resetsAt });
    if (budgets.agentPerDay) refs.push({ scope: "agentPerDay", key: agentBudgetKey(day), limits: budgets.agentPerDay, resetsAt });
    return refs;
  }

  /** The meter one turn's model calls go through (its subagents' included). */
  forTurn(record: SessionRecord, turn: TurnMeterHandle): TurnMeter {
    this.#pruneOncePerDay(this.options.now());
    return new TurnMeter(this, { sessionId: record.sessionId, principalId: record.owner.principalId, turnId: turn.turnId }, turn);
  }

  /**
   * Refuses a send (429 `budget_exceeded`) while a session, principal or agent limit is used up;
   * the turn scope starts again with every turn, so it never refuses a send.
   */
  async checkSend(subject: BudgetSubject): Promise<void> {
    const at = this.options.now();
    const refs = this.refs({ ...subject, turnId: undefined }, at).filter((ref) => ref.scope !== "turn");
    const raws = await Promise.all(refs.map((ref) => this.options.storage.get(ref.key)));
    for (const [n, ref] of refs.entries()) {
      const exceeded = firstExceeded(ref, readRecord(ref, raws[n], at).used);
      if (!exceeded) continue;
      const retryAfter = exceeded.resetsAt === undefined ? undefined : Math.max(1, Math.ceil((Date.parse(exceeded.resetsAt) - at) / 1000));
      throw new HTTPError({
        status: 429,
        code: "budget_exceeded",
        message: exceeded.resetsAt === undefined
          ? `the ${ref.scope} budget's ${exceeded.limit} limit is used up (${exceeded.used} of ${exceeded.max})`
          : `the ${ref.scope} budget's ${exceeded.limit} limit is used up (${exceeded.used} of ${exceeded.max}) until ${exceeded.resetsAt}`,
        data: { ...exceeded },
        ...(retryAfter === undefined ? {} : { headers: { "retry-after": String(retryAfter) } }),
      });
    }
  }

  /**
   * Past days' records are removed with the first turn of each UTC day in this process (every
   * process does it; deleting twice is harmless). In the background: no turn waits for it.
   */
  #pruneOncePerDay(at: number): void {
    // Whatever the budgets are now: records of an earlier config's per-day scopes go too.
    const { storage } = this.options;
    const day = utcDay(at);
    if (this.#prunedDay === day) return;
    this.#prunedDay = day;
    // A store that fails now is tried again on the next day's first turn.
    pruneDays(storage, at).catch(() => {});
  }

  /** Usage against each limit of the scopes `record`'s session counts toward, as of now. */
  async report(record: SessionRecord): Promise<BudgetReport> {
    const at = this.options.now();
    const refs = this.refs({ sessionId: record.sessionId, principalId: record.owner.principalId }, at);
    // The turn scope reports the latest turn that spent anything, whichever it was.
    if (this.options.budgets.turn) refs.unshift({ scope: "turn", key: turnBudgetKey(record.sessionId), limits: this.options.budgets.turn });
    const raws = await Promise.all(refs.map((ref) => this.options.storage.get(ref.key)));
    const report: BudgetReport = {};
    for (const [n, ref] of refs.entries()) {
      const stored = readRecord(ref, raws[n], at);
      const held = heldOf(stored);
      const entry: BudgetScopeReport = {
        limits: ref.limits,
        used: stored.used,
        inFlight: { tokens: held.tokens, costUsd: held.costUsd },
        exceeded: exceededLimits(ref, stored.used),
        ...(ref.scope === "turn" ? { turnId: stored.turnId ?? null } : {}),
        ...(ref.resetsAt === undefined ? {} : { window: { day: utcDay(at), resetsAt: ref.resetsAt } }),
      };
      report[ref.scope as BudgetScope] = entry;
    }
    return report;
  }
}
