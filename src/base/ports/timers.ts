/**
 * The timer port (docs/design/timed-work.md "The timer port and who fires"): where the host says
 * when it next has timed work to do.
 *
 * Keys name one schedule or reminder of one agent (`<slug>/schedules/<id>`,
 * `<slug>/reminders/<id>`). An arm is a one-shot wake-up call: when its time comes the port wakes
 * the host once (the built-in clock calls `host.tick()`, a platform calls the internal fire route
 * the key names) and forgets the key; the host re-arms what is still pending. Arming a key again
 * replaces its time. The host keeps every due time in storage, so a port may lose its arms (a
 * restart) without losing work: the host re-arms everything when it starts.
 * @module
 */

export interface TimerPort {
  /** Wake the host at `at` (epoch milliseconds) for `key`; a time in the past means "now". */
  arm(key: string, at: number): void;
  /** Forget `key`; unknown keys are ignored. */
  disarm(key: string): void;
  /** Stops waking the host; later arms are ignored. */
  close(): void;
}

/** A port that ignores everything: dev mode, and hosts whose timed work a platform fires. */
export const noTimers: TimerPort = {
  arm() {},
  disarm() {},
  close() {},
};
