/**
 * The Workers cron triggers for a build's schedules (docs/guide/cloudflare.md "Schedules and
 * cron triggers"). A trigger only wakes the worker: its `scheduled` handler calls `host.tick`,
 * which fires exactly the schedules that are due by the host's own cron rules. So a trigger may
 * fire more often than a schedule needs, never less. A schedule's expression becomes its own
 * trigger when Workers reads it the same way; otherwise, or when there would be more triggers than
 * a worker may have, one per-minute trigger covers everything and `host.tick` decides.
 * @module
 */
import type { Diagnostic, ScheduleDefinition } from "../../src/index.ts";

/** Fires every minute; covers any schedule. */
export const EVERY_MINUTE = "* * * * *";

/** Triggers one build asks for at most (the Workers Free plan allows 5 per account); more fold into {@link EVERY_MINUTE}. */
export const MAX_TRIGGERS = 5;

export interface CronTriggers {
  crons: string[];
  diagnostics: Diagnostic[];
}

/** Triggers for the schedules of every project (`slug` to schedules). */
export function cronTriggers(projects: Array<{ slug: string; schedules?: Record<string, ScheduleDefinition> }>): CronTriggers {
  const diagnostics: Diagnostic[] = [];
  const crons = new Set<string>();
  for (const { slug, schedules } of projects) {
    for (const [id, schedule] of Object.entries(schedules ?? {})) {
      const converted = toWorkersCron(schedule.cron);
      if (converted !== undefined) {
        crons.add(converted);
        continue;
      }
      crons.add(EVERY_MINUTE);
      diagnostics.push({
        severity: "info",
        code: "cron_every_minute",
        message: `${slug}: schedule ${id} (cron ${JSON.stringify(schedule.cron)}) has no exact Workers cron form; a per-minute trigger wakes the worker and the host fires it when due`,
      });
    }
  }
  if (crons.has(EVERY_MINUTE) || crons.size > MAX_TRIGGERS) {
    if (crons.size > MAX_TRIGGERS) {
      diagnostics.push({
        severity: "info",
        code: "cron_every_minute",
        message: `${crons.size} distinct schedule crons exceed the ${MAX_TRIGGERS} triggers a worker may have; one per-minute trigger wakes the worker and the host fires each schedule when due`,
      });
    }
    return { crons: [EVERY_MINUTE], diagnostics };
  }
  return { crons: [...crons].sort(), diagnostics };
}

/**
 * `expression` as Workers reads it, or undefined when that is not certain: only numbers, `*`,
 * ranges, steps and lists; days of the week become names (`MON-FRI`), since Workers numbers
 * them from 1 = Sunday where the host's cron has 0 = Sunday; a day of the month together with a
 * day of the week (either one matches, in the host's cron) is left to the per-minute trigger.
 */
export function toWorkersCron(expression: string): string | undefined {
  const fields = expression.trim().split(/\s+/);
  if (fields.length !== 5 || !fields.every((field) => /^[\d*,/-]+$/.test(field))) return undefined;
  const [minute, hour, dayOfMonth, month, dayOfWeek] = fields as [string, string, string, string, string];
  if (dayOfMonth !== "*" && dayOfWeek !== "*") return undefined;
  const days = dayOfWeek === "*" ? "*" : dayNames(dayOfWeek);
  if (days === undefined) return undefined;
  return [minute, hour, dayOfMonth, month, days].join(" ");
}

// --- internals ---

const DAY_NAMES = ["SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"];

/** `1-5` to `MON-FRI`, `0,6` to `SUN,SAT`, `*\/2` to `SUN,TUE,THU,SAT`; 7 is Sunday too. */
function dayNames(field: string): string | undefined {
  const days = new Set<number>();
  for (const part of field.split(",")) {
    const match = /^(\*|(\d)(?:-(\d))?)(?:\/(\d+))?$/.exec(part);
    // `5/2` (a start with a step, no end) ends where each cron dialect says: left to the per-minute trigger.
    if (!match || (match[2] !== undefined && match[3] === undefined && match[4] !== undefined)) return undefined;
    const from = match[1] === "*" ? 0 : Number(match[2]);
    const to = match[1] === "*" ? 6 : match[3] === undefined ? from : Number(match[3]);
    const step = match[4] === undefined ? 1 : Number(match[4]);
    if (from > 7 || to > 7 || from > to || step < 1) return undefined;
    for (let day = from; day <= to; day += step) days.add(day % 7);
  }
  const sorted = [...days].sort((a, b) => a - b);
  // A contiguous run reads best as a range (MON-FRI); anything else as a list.
  const contiguous = sorted.length > 2 && sorted.every((day, i) => i === 0 || day === sorted[i - 1]! + 1);
  if (contiguous) return `${DAY_NAMES[sorted[0]!]}-${DAY_NAMES[sorted.at(-1)!]}`;
  return sorted.map((day) => DAY_NAMES[day]).join(",");
}
