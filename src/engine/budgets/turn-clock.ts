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
/** The shortest slice, however small the limit (a tenth of the smallest `seconds` limit else). */
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

  constructor(services: ClockServices, onExceeded: (exceeded: BudgetExceededData) => Promise<void>) {
    this.#services = services;
    this.#onExceeded = onExceeded;
    this.#checkpoint = services.now();
    const maxes = services.refs(this.#checkpoint).flatMap((ref) => (ref.limits.seconds === undefined ? [] : [ref.limits.seconds]));
    this.#slice = maxes.length === 0 ? 0 : Math.min(MAX_SLICE_SECONDS, Math.max(MIN_SLICE_SECONDS, Math.min(...maxes) / 10));
  }

  /** Aborted once the turn's time is up: the work in flight stops. */
  get signal(): AbortSignal {
    return this.#cut.signal;
  }

  /** Why the turn's time is up, once it is. */
  get stopped(): BudgetExceededData | undefined {
    return this.#stopped;
  }

  /** The seconds since the last checkpoint, which moves to `at`: the caller's commit counts them. */
  take(at: number): number {
    const seconds = Math.max(0, (at - this.#checkpoint) / 1000);
    this.#checkpoint = Math.max(this.#checkpoint, at);
    return seconds;
  }

  /**
   * A model call or a tool run starts. The first of them takes a lease, waiting while other turns
   * hold what is left; resolves with the refusal when the time is up (then `exit` is not called).
   */
  async enter(signal: AbortSignal): Promise<BudgetExceededData | undefined> {
    if (this.#stopped) return this.#stopped;
    if (this.#active++ > 0 || this.#slice === 0) return undefined;
    const { storage, now, refs } = this.#services;
    for (let attempt = 0; ; attempt++) {
      if (signal.aborted) {
        this.#active--;
        throw abortError();
      }
      const at = now();
      const result = await lease(storage, refs(at), this.#id, this.#slice, this.take(at), this.#until(at), now).catch((error: unknown) => {
        this.#active--;
        throw error;
      });
      if (result.status === "leased") {
        this.#arm(result.seconds);
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
    if (this.#slice === 0) return;
    await this.#renewal;
    if (this.#active > 0) return;
    const { storage, now, refs } = this.#services;
    const at = now();
    const result = await lease(storage, refs(at), this.#id, 0, this.take(at), 0, now);
    if (result.status === "exceeded") await this.#onExceeded(result.exceeded);
  }

  // --- internals ---

  #until(at: number): number {
    return at + this.#slice * 1000 + LEASE_GRACE_MS;
  }

  #arm(seconds: number): void {
    this.#timer = setTimeout(() => {
      this.#renewal = this.#renew();
    }, seconds * 1000);
  }

  /** The slice ran out while work is in flight: count it and lease the next, or stop the turn. */
  async #renew(): Promise<void> {
    if (this.#active === 0 || this.#stopped) return;
    const { storage, now, refs } = this.#services;
    const at = now();
    try {
      const result = await lease(storage, refs(at), this.#id, this.#slice, this.take(at), this.#until(at), now);
      if (result.status !== "leased") return await this.#stop(result.exceeded);
      if (this.#active > 0) this.#arm(result.seconds);
    } catch {
      // The store did not answer: try again shortly (the turn's own writes fail meanwhile).
      if (this.#active > 0) this.#arm(MIN_SLICE_SECONDS);
    }
  }

  async #stop(exceeded: BudgetExceededData): Promise<void> {
    if (this.#stopped) return;
    this.#stopped = exceeded;
    // Recorded before the work stops, so `budget.exceeded` comes before the turn's end.
    await this.#onExceeded(exceeded).catch(() => {});
    this.#cut.abort(abortError());
  }
}

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
