/**
 * The built-in clock: an in-process `TimerPort` with one unref'd `setTimeout` for the earliest
 * armed time. When it fires, every key due by then is forgotten and `onDue()` is called once;
 * the host then fires what is due (`host.tick()`) and re-arms the rest.
 * @module
 */
import type { TimerPort } from "../../base/ports/timers.ts";

export interface ClockOptions {
  /** Called when at least one armed time has come. Must not throw. */
  onDue(): void;
  /** @default Date.now */
  now?: () => number;
  /**
   * Longest single wait. Longer waits are taken in steps, so a wall clock that jumps (a laptop
   * resuming, an NTP step) is noticed within this long.
   * @default 60000
   */
  maxWaitMs?: number;
}

export function createClock(options: ClockOptions): TimerPort {
  const now = options.now ?? Date.now;
  const maxWaitMs = options.maxWaitMs ?? 60_000;
  const armed = new Map<string, number>();
  let earliest = Number.POSITIVE_INFINITY;
  // Set when the earliest key was disarmed or moved later; recomputed once per reschedule, so a
  // batch of thousands of arms and disarms costs one scan, not one per change.
  let stale = false;
  let pending = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let timerAt = Number.NaN;
  let closed = false;

  const reschedule = (): void => {
    pending = false;
    if (closed) return;
    if (stale) {
      earliest = Number.POSITIVE_INFINITY;
      for (const at of armed.values()) if (at < earliest) earliest = at;
      stale = false;
    }
    if (earliest === Number.POSITIVE_INFINITY) return stop();
    if (timer !== undefined && timerAt === earliest) return;
    stop();
    const wait = Math.min(Math.max(0, earliest - now()), maxWaitMs);
    timerAt = earliest;
    timer = setTimeout(wake, wait);
    unref(timer);
  };

  const later = (): void => {
    if (pending || closed) return;
    pending = true;
    queueMicrotask(reschedule);
  };

  const stop = (): void => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    timerAt = Number.NaN;
  };

  const wake = (): void => {
    timer = undefined;
    timerAt = Number.NaN;
    if (closed) return;
    const at = now();
    let due = false;
    for (const [key, when] of armed) {
      if (when <= at) {
        armed.delete(key);
        due = true;
      }
    }
    stale = true;
    reschedule();
    if (due) options.onDue();
  };

  return {
    arm(key, at) {
      if (closed) return;
      const previous = armed.get(key);
      armed.set(key, at);
      if (at < earliest) earliest = at;
      else if (previous === earliest && at !== previous) stale = true;
      later();
    },
    disarm(key) {
      const previous = armed.get(key);
      if (previous === undefined) return;
      armed.delete(key);
      if (previous === earliest) stale = true;
      later();
    },
    close() {
      closed = true;
      armed.clear();
      stop();
    },
  };
}

// --- internals ---

/** Node's timers keep the process alive unless unref'd; other runtimes return a number. */
function unref(handle: unknown): void {
  if (typeof handle === "object" && handle !== null && "unref" in handle && typeof handle.unref === "function") handle.unref();
}
