/**
 * When a reminder fires: `delay` once, `every` on a fixed grid from its first due time, `cron`
 * at the pattern's slots. A recurring reminder that was due several times while the host was
 * down fires once and continues on its grid; it never fires a burst.
 * @module
 */
import { type CronSchedule, compileCron } from "../../base/cron.ts";
import { parseDuration } from "../../base/duration.ts";
import type { ReminderRecord } from "../../base/definitions/reminders.ts";

export type Cadence =
  | { kind: "delay"; ms: number }
  | { kind: "every"; ms: number }
  | { kind: "cron"; schedule: CronSchedule };

/** The cadence of a stored record (validated at creation). */
export function cadenceOf(record: Pick<ReminderRecord, "delay" | "every" | "cron">): Cadence {
  if (record.cron !== undefined) return { kind: "cron", schedule: compileCron(record.cron) };
  const every = record.every === undefined ? undefined : parseDuration(record.every);
  if (every !== undefined) return { kind: "every", ms: every };
  return { kind: "delay", ms: parseDuration(record.delay) ?? 0 };
}

/** The first due time of a reminder armed at `now`. */
export function firstFireAt(cadence: Cadence, now: number): number | null {
  return cadence.kind === "cron" ? cadence.schedule.next(now) : now + cadence.ms;
}

/**
 * The due time after a firing at `now` of the slot due at `due`; null when the reminder is done.
 * Fired by hand before it was due, a recurring reminder keeps its next due time.
 */
export function nextFireAt(cadence: Cadence, due: number, now: number): number | null {
  if (cadence.kind === "delay") return null;
  if (due > now) return due;
  if (cadence.kind === "cron") return cadence.schedule.next(now);
  return due + (Math.floor((now - due) / cadence.ms) + 1) * cadence.ms;
}
