/**
 * The timer port on Workers (docs/design/cloudflare.md "Timed work"): each object keeps the times
 * its host armed and one Durable Object alarm at the earliest of them; the alarm calls
 * `host.tick()`. An alarm outlives the object's eviction, and a host re-arms everything due from
 * storage when it starts, so no arm is lost.
 * @module
 */
import type { TimerPort } from "../../src/base/ports/timers.ts";
import type { DurableObjectStorageLike } from "./platform.ts";

/** The port: one alarm at the earliest armed time; `wakeAt` also moves it earlier. */
export function alarmTimers(storage: DurableObjectStorageLike, onError: (error: unknown) => void): TimerPort & { wakeAt(at: number): void; next(): number | undefined } {
  const armed = new Map<string, number>();
  let closed = false;
  // One alarm change at a time: two arms reading the same old alarm must not set the later time.
  let changes: Promise<void> = Promise.resolve();
  const schedule = (at: number): void => {
    changes = changes
      .then(async () => {
        const current = await storage.getAlarm();
        if (current === null || at < current) await storage.setAlarm(Math.max(at, Date.now()));
      })
      .catch(onError);
  };
  return {
    arm(key, at) {
      if (closed) return;
      armed.set(key, at);
      schedule(at);
    },
    disarm(key) {
      armed.delete(key);
    },
    close() {
      closed = true;
    },
    /** Wakes the object at `at` at the latest (an earlier alarm stays). */
    wakeAt(at) {
      if (!closed) schedule(at);
    },
    /** After a tick: forget what came due, and the earliest time still armed. */
    next() {
      const now = Date.now();
      let earliest: number | undefined;
      for (const [key, at] of armed) {
        if (at <= now) armed.delete(key);
        else if (earliest === undefined || at < earliest) earliest = at;
      }
      return earliest;
    },
  };
}
