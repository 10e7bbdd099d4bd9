/**
 * Budget usage in storage (docs/design/budgets.md "Records"): one record per scope window, holding
 * what settled calls used and the holds of calls admitted and not settled yet. Every change to the
 * records a call touches is one compare-and-set commit over all of them, retried from a fresh read
 * when another turn (in this process or another sharing the store) changed one meanwhile: no
 * counter lives only in memory.
 * @module
 */
import { BUDGET_LIMITS, type BudgetExceededData, type BudgetLimitName, type BudgetLimits, type BudgetScope, type BudgetUsage } from "../../base/definitions/budgets.ts";
import { RecordConflictError, type StorageDriver } from "../../base/storage/types.ts";

/** One scope window a call counts toward. */
export interface ScopeRef {
  scope: BudgetScope;
  key: string;
  limits: BudgetLimits;
  /** `turn`: the record belongs to this turn; another turn's record starts from zero. */
  turnId?: string;
  /** Per-day scopes: the next UTC midnight. */
  resetsAt?: string;
}

/**
 * What an admitted call may still spend, at most, until it settles; or a running turn's lease on
 * the next seconds of its time (docs/design/budgets.md "Seconds").
 */
export interface Hold {
  tokens: number;
  costUsd: number;
  /** A lease's seconds (0 for a model call's hold). */
  seconds?: number;
  /** Epoch ms after which the hold is dropped: its holder crashed (docs/design/budgets.md "Holds"). */
  until: number;
}

export interface ScopeRecord {
  turnId?: string;
  used: BudgetUsage;
  holds: Record<string, Hold>;
}

export type Admission = { status: "admitted" } | { status: "wait" } | { status: "exceeded"; exceeded: BudgetExceededData };

/** Attempts of one change that keeps losing races before it gives up with the conflict. */
const MAX_ATTEMPTS = 200;

export const zeroUsage = (): BudgetUsage => ({ tokens: 0, costUsd: 0, toolCalls: 0, seconds: 0 });

/** The stored record of `ref` as of `now` (another turn's record, or none, reads as empty). */
export function readRecord(ref: ScopeRef, raw: string | undefined, now: number): ScopeRecord {
  let parsed: Partial<ScopeRecord> | undefined;
  try {
    parsed = raw === undefined ? undefined : (JSON.parse(raw) as Partial<ScopeRecord>);
  } catch {
    parsed = undefined;
  }
  if (!parsed || (ref.turnId !== undefined && parsed.turnId !== ref.turnId)) {
    return { ...(ref.turnId === undefined ? {} : { turnId: ref.turnId }), used: zeroUsage(), holds: {} };
  }
  const holds: Record<string, Hold> = {};
  for (const [id, hold] of Object.entries(parsed.holds ?? {})) if (hold.until > now) holds[id] = hold;
  return { ...(parsed.turnId === undefined ? {} : { turnId: parsed.turnId }), used: { ...zeroUsage(), ...parsed.used }, holds };
}

/** The total of a record's live holds. */
export function heldOf(record: ScopeRecord): { tokens: number; costUsd: number; seconds: number } {
  let tokens = 0;
  let costUsd = 0;
  let seconds = 0;
  for (const hold of Object.values(record.holds)) {
    tokens += hold.tokens;
    costUsd += hold.costUsd;
    seconds += hold.seconds ?? 0;
  }
  return { tokens, costUsd, seconds };
}

/** The first limit of `ref` that `used` has reached. */
export function firstExceeded(ref: ScopeRef, used: BudgetUsage): BudgetExceededData | undefined {
  for (const limit of BUDGET_LIMITS) {
    const max = ref.limits[limit];
    if (max !== undefined && used[limit] >= max) return exceededData(ref, limit, used[limit], max);
  }
  return undefined;
}

/** Every limit of `ref` that `used` has reached. */
export function exceededLimits(ref: ScopeRef, used: BudgetUsage): BudgetLimitName[] {
  return BUDGET_LIMITS.filter((limit) => ref.limits[limit] !== undefined && used[limit] >= ref.limits[limit]!);
}

/**
 * Admits a call that may spend `hold` (its estimated input and maximum output) and adds the
 * turn's `seconds` since its last checkpoint. Refused when a limit is already reached; told to
 * wait when its hold does not fit beside other calls in flight (the last call before a limit runs
 * alone, so the limit is overshot by at most that one call).
 */
export async function admit(storage: StorageDriver, refs: readonly ScopeRef[], id: string, hold: Hold, seconds: number, now: () => number): Promise<Admission> {
  return change<Admission>(storage, refs, now, (records) => {
    for (const record of records) record.used.seconds += seconds;
    for (const [n, ref] of refs.entries()) {
      const exceeded = firstExceeded(ref, records[n]!.used);
      // The seconds are stored even so: the time ran.
      if (exceeded) return { result: { status: "exceeded", exceeded }, write: seconds > 0 };
    }
    for (const [n, ref] of refs.entries()) {
      const record = records[n]!;
      // Leases of turns' seconds hold no tokens: only calls in flight make a call wait.
      if (!Object.values(record.holds).some((other) => other.tokens > 0 || other.costUsd > 0)) continue;
      const held = heldOf(record);
      const over = (limit: "tokens" | "costUsd"): boolean => ref.limits[limit] !== undefined && record.used[limit] + held[limit] + hold[limit] > ref.limits[limit]!;
      if (over("tokens") || over("costUsd")) return { result: { status: "wait" }, write: seconds > 0 };
    }
    for (const record of records) record.holds[id] = hold;
    return { result: { status: "admitted" }, write: true };
  });
}

/**
 * Counts one tool call before it runs, and the turn's `seconds` since its last checkpoint. Refused
 * when a `toolCalls` limit is already reached, so tool calls never pass that limit, however many
 * turns race for it: the count is taken in the same compare-and-set commit that checks it.
 */
export async function chargeToolCall(storage: StorageDriver, refs: readonly ScopeRef[], seconds: number, now: () => number): Promise<Admission> {
  return change<Admission>(storage, refs, now, (records) => {
    for (const record of records) record.used.seconds += seconds;
    for (const [n, ref] of refs.entries()) {
      const max = ref.limits.toolCalls;
      const used = records[n]!.used.toolCalls;
      if (max !== undefined && used >= max) return { result: { status: "exceeded", exceeded: exceededData(ref, "toolCalls", used, max) }, write: seconds > 0 };
    }
    for (const record of records) record.used.toolCalls += 1;
    return { result: { status: "admitted" }, write: true };
  });
}

export type Lease = { status: "leased"; seconds: number } | { status: "full" | "exceeded"; exceeded: BudgetExceededData };

/**
 * Adds the turn's `seconds` since its last checkpoint and replaces the turn's lease `id` with up
 * to `want` seconds more, as many as every scope with a `seconds` limit has left beside the other
 * leases (`want` 0 only releases). `exceeded` when a limit is reached (when releasing: crossed by this commit); `full` when what is left is
 * leased to other turns (its `used` counts their leases).
 */
export async function lease(storage: StorageDriver, refs: readonly ScopeRef[], id: string, want: number, seconds: number, until: number, now: () => number): Promise<Lease> {
  return change<Lease>(storage, refs, now, (records) => {
    const before = records.map((record) => record.used.seconds);
    for (const record of records) {
      record.used.seconds = round(record.used.seconds + seconds);
      if (want === 0) delete record.holds[id];
    }
    let room = want;
    let full: BudgetExceededData | undefined;
    for (const [n, ref] of refs.entries()) {
      const record = records[n]!;
      const max = ref.limits.seconds;
      if (max === undefined) continue;
      // Releasing, only a limit this commit crossed is news.
      const reached = want === 0 ? before[n]! < max && record.used.seconds >= max : record.used.seconds >= max;
      if (reached) return { result: { status: "exceeded", exceeded: exceededData(ref, "seconds", record.used.seconds, max) }, write: want === 0 || seconds > 0 };
      if (want === 0) continue;
      const promised = record.used.seconds + heldOf(record).seconds - (record.holds[id]?.seconds ?? 0);
      if (max - promised < room) room = max - promised;
      if (room <= 0) full ??= exceededData(ref, "seconds", promised, max);
    }
    // Refused, the turn keeps what is left of its lease until it releases it: the time it takes
    // to stop stays promised to it.
    if (full) return { result: { status: "full", exceeded: full }, write: seconds > 0 };
    if (want === 0) return { result: { status: "leased", seconds: 0 }, write: true };
    for (const [n, ref] of refs.entries()) {
      if (ref.limits.seconds !== undefined) records[n]!.holds[id] = { tokens: 0, costUsd: 0, seconds: room, until };
    }
    return { result: { status: "leased", seconds: room }, write: true };
  });
}

/** Replaces the call's hold with what it used; resolves with the limits this crossed. */
export async function settle(storage: StorageDriver, refs: readonly ScopeRef[], id: string, spent: BudgetUsage, now: () => number): Promise<BudgetExceededData[]> {
  return change<BudgetExceededData[]>(storage, refs, now, (records) => {
    const crossed: BudgetExceededData[] = [];
    for (const [n, ref] of refs.entries()) {
      const record = records[n]!;
      delete record.holds[id];
      const before = exceededLimits(ref, record.used);
      for (const limit of BUDGET_LIMITS) record.used[limit] = round(record.used[limit] + spent[limit]);
      for (const limit of exceededLimits(ref, record.used)) {
        if (!before.includes(limit)) crossed.push(exceededData(ref, limit, record.used[limit], ref.limits[limit]!));
      }
    }
    return { result: crossed, write: true };
  });
}

// --- internals ---

/** Reads every record, applies `apply` and commits all of them at once if none changed meanwhile. */
async function change<T>(
  storage: StorageDriver,
  refs: readonly ScopeRef[],
  now: () => number,
  apply: (records: ScopeRecord[]) => { result: T; write: boolean },
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const raws = await Promise.all(refs.map((ref) => storage.get(ref.key)));
    const at = now();
    const records = refs.map((ref, n) => readRecord(ref, raws[n], at));
    const { result, write } = apply(records);
    if (!write || refs.length === 0) return result;
    try {
      await storage.commit({ records: refs.map((ref, n) => ({ key: ref.key, value: JSON.stringify(records[n]), expected: raws[n] ?? null })) });
      return result;
    } catch (error) {
      if (!RecordConflictError.isError(error) || attempt >= MAX_ATTEMPTS) throw error;
      // Turns racing for one record back off a little, at random, so they stop colliding.
      await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(2 * attempt, 20)));
    }
  }
}

function exceededData(ref: ScopeRef, limit: BudgetLimitName, used: number, max: number): BudgetExceededData {
  return { scope: ref.scope, limit, used: round(used), max, ...(ref.resetsAt === undefined ? {} : { resetsAt: ref.resetsAt }) };
}

/** Costs are sums of small fractions: rounded to a millionth of a unit, as the cost report is. */
function round(value: number): number {
  return Math.round(value * 1e6) / 1e6;
}
