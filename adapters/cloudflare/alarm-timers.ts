/**
 * The timer port on Workers (docs/design/cloudflare.md "Timed work"): the coordinator keeps the
 * armed times and one Durable Object alarm at the earliest of them; the alarm calls `host.tick()`.
 * Hosts in session objects forward their arms to the coordinator ("wake at"), so a reminder a
 * turn sets fires on time. Lost arms lose nothing: due times live in storage and the
 * coordinator's host re-arms them when it starts, and every cron trigger ticks as well.
 * @module
 */
import type { TimerPort } from "../../src/timers/types.ts";
import type { DurableObjectStorageLike } from "./platform.ts";

/** The coordinator's port: one alarm at the earliest armed time. */
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
    /** An arm forwarded from a session object. */
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

/** A session object's port: arms go to the coordinator as one "wake at the earliest" per burst. */
export function forwardedTimers(wakeAt: (at: number) => Promise<void>, onError: (error: unknown) => void): TimerPort {
  let pending: number | undefined;
  let closed = false;
  return {
    arm(_key, at) {
      if (closed) return;
      if (pending !== undefined) {
        pending = Math.min(pending, at);
        return;
      }
      pending = at;
      queueMicrotask(() => {
        const earliest = pending!;
        pending = undefined;
        wakeAt(earliest).catch(onError);
      });
    },
    disarm() {},
    close() {
      closed = true;
    },
  };
}
