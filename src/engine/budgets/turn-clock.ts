/**
 * One turn's clock for the `seconds` limits (docs/design/budgets.md "Seconds"): the turn's
 * running time is counted from checkpoint to checkpoint, and while a model call or a tool runs
 * with a `seconds` limit set, the turn holds a lease on the next slice of what is left, renewed
 * slice by slice. A lease that cannot be renewed stops the turn's work (its signal aborts), so
 * turns racing the same limit never run past it by more than the time they take to stop.
 * @module
 */
import { abortError } from "../../base/abort.ts";
import type { BudgetExceededData } from "../../base/definitions/budgets.ts";
import { randomId } from "../../base/ids.ts";
import type { StorageDriver } from "../../base/storage/types.ts";
import { type ScopeRef, lease } from "./ledger.ts";

/** The longest slice a lease takes: a renewal commit per running turn at most this often. */
export const MAX_SLICE_SECONDS = 5;
/** The shortest slice, however small the limit (a quarter of the smallest `seconds` limit else). */
export const MIN_SLICE_SECONDS = 0.05;
/** How long a lease outlives its slice before other turns stop counting it: its holder crashed. */
export const LEASE_GRACE_MS = 30_000;

export interface ClockServices {
  storage: StorageDriver;
  now: () => number;
  /** The scope windows the turn counts toward at `at`. */
  refs: (at: number) => ScopeRef[];
}

export class TurnClock {
  readonly #services: ClockServices;
  readonly #onExceeded: (exceeded: BudgetExceededData) => Promise<void>;
  readonly #id = `clock-${randomId(12)}`;
  /** The slice a lease asks for, or 0 when no scope limits `seconds` (no lease is taken). */
  readonly #slice: number;
  readonly #cut = new AbortController();
  #checkpoint: number;
  /** Model calls and tool runs in flight (a subagent's calls run inside its `task` call). */
  #active = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #renewal: Promise<void> = Promise.resolve();
  #stopped: BudgetExceededData | undefined;
  /** When the turn was cut off (its work stopped), else never. */
  #cutAt = Number.POSITIVE_INFINITY;
  /** Seconds counted and not yet committed (without a lease, they wait for the next call's commit). */
  #pending = 0;

  constructor(services: ClockServices, onExceeded: (exceeded: BudgetExceededData) => Promise<void>) {
    this.#services = services;
    this.#onExceeded = onExceeded;
    this.#checkpoint = services.now();
    const maxes = services.refs(this.#checkpoint).flatMap((ref) => (ref.limits.seconds === undefined ? [] : [ref.limits.seconds]));
    this.#slice = maxes.length === 0 ? 0 : Math.min(MAX_SLICE_SECONDS, Math.max(MIN_SLICE_SECONDS, Math.min(...maxes) / 4));
  }

  /** Aborted once the turn's time is up: the work in flight stops. */
  get signal(): AbortSignal {
    return this.#cut.signal;
  }

  /** Why the turn's time is up, once it is. */
  get stopped(): BudgetExceededData | undefined {
    return this.#stopped;
  }

  /**
   * The seconds run since they were last taken, up to `at` (the checkpoint moves there): the
   * caller's commit counts them.
   */
  take(at: number): number {
    const seconds = this.#pending + this.#elapsed(at);
    this.#pending = 0;
    return seconds;
  }

  /**
   * A model call or a tool run starts. The first of them takes a lease, waiting while other turns
   * hold what is left; resolves with the refusal when the time is up (then `exit` is not called).
   */
  async enter(signal: AbortSignal): Promise<BudgetExceededData | undefined> {
    if (this.#stopped) return this.#stopped;
    if (this.#active++ > 0) return undefined;
    const { storage, now, refs } = this.#services;
    // Only calls and runs in flight count: not the time between them, nor waits for a lease.
    if (this.#slice === 0) return void this.#skip(now());
    for (let attempt = 0; ; attempt++) {
      if (signal.aborted) {
        this.#active--;
        throw abortError();
      }
      const at = this.#skip(now());
      const result = await lease(storage, refs(at), this.#id, this.#slice, this.take(at), this.#until(at), now).catch((error: unknown) => {
        this.#active--;
        throw error;
      });
      if (result.status === "leased") {
        // The lease runs from now: the wait for the store's answer was no work of the turn's.
        this.#arm(this.#skip(now()), result.seconds);
        return undefined;
      }
      if (result.status === "exceeded") {
        this.#active--;
        await this.#stop(result.exceeded);
        return result.exceeded;
      }
      // What is left is leased to other turns: they may end before using it all.
      await pause(Math.min(10 * (attempt + 1), 100), signal);
    }
  }

  /** A model call or a tool run ended: the last one out counts the time and releases the lease. */
  async exit(): Promise<void> {
    if (--this.#active > 0) return;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    const { storage, now, refs } = this.#services;
    // Without a lease to release, the time waits for the turn's next commit.
    if (this.#slice === 0) return void (this.#pending += this.#elapsed(now()));
    await this.#renewal;
    if (this.#active > 0) return;
    const at = now();
    const result = await lease(storage, refs(at), this.#id, 0, this.take(at), 0, now);
    if (result.status === "exceeded") await this.#onExceeded(result.exceeded);
  }

  // --- internals ---

  /** The seconds from the checkpoint to `at` (no later than a cut: the work stopped there), moving it. */
  #elapsed(at: number): number {
    const end = Math.min(at, this.#cutAt);
    const seconds = Math.max(0, (end - this.#checkpoint) / 1000);
    this.#checkpoint = Math.max(this.#checkpoint, end);
    return seconds;
  }

  /** Moves the checkpoint to `at` without counting the time before it; resolves with the checkpoint. */
  #skip(at: number): number {
    this.#checkpoint = Math.max(this.#checkpoint, at);
    return this.#checkpoint;
  }

  #until(at: number): number {
    return at + this.#slice * 1000 + LEASE_GRACE_MS;
  }

  /**
   * Renews halfway through the lease taken at `at`, so the store's answer comes while the lease
   * still covers the turn, and a turn refused more time stops inside what it holds.
   */
  #arm(at: number, seconds: number): void {
    this.#timer = setTimeout(() => {
      this.#renewal = this.#renew();
    }, Math.max(0, at + (seconds * 1000) / 2 - this.#services.now()));
  }

  /** Halfway through a lease, work still in flight: count the time and lease the next slice, or stop the turn. */
  async #renew(): Promise<void> {
    if (this.#active === 0 || this.#stopped) return;
    const { storage, now, refs } = this.#services;
    const at = now();
    try {
      const result = await lease(storage, refs(at), this.#id, this.#slice, this.take(at), this.#until(at), now);
      if (result.status !== "leased") return await this.#stop(result.exceeded);
      if (this.#active > 0) this.#arm(at, result.seconds);
    } catch {
      // The store did not answer: try again shortly (the turn's own writes fail meanwhile).
      if (this.#active > 0) this.#arm(now(), MIN_SLICE_SECONDS);
    }
  }

  async #stop(exceeded: BudgetExceededData): Promise<void> {
    if (this.#stopped) return;
    this.#stopped = exceeded;
    this.#cutAt = this.#services.now();
    // Recorded first (a session's appends commit in order, so `budget.exceeded` comes before the
    // turn's end), without waiting for it to stop the work.
    const recorded = this.#onExceeded(exceeded).catch(() => {});
    this.#cut.abort(abortError());
    await recorded;
  }
}

/** Resolves after `ms`, or at once when `signal` aborts (the caller then sees the abort). */
export function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
  });
}
