/**
 * Cron expressions (docs/design/timed-work.md "Schedules": standard 5 fields, UTC, minute
 * granularity). croner is used only as a calculator, with no callback, so it never arms a timer of
 * its own (docs/design/timed-work.md "The timer port and who fires").
 * @module
 */
import { Cron } from "croner";

export interface CronSchedule {
  readonly expression: string;
  /** The first slot strictly after `after` (epoch ms), or null when the pattern never matches again. */
  next(after: number): number | null;
  /** The last slot strictly before `before`, or null. */
  previous(before: number): number | null;
}

/** Compiles `expression`; throws an `Error` saying what is wrong with it. */
export function compileCron(expression: string): CronSchedule {
  const cron = new Cron(expression, { timezone: "UTC", mode: "5-part" });
  return {
    expression,
    next(after) {
      return cron.nextRun(new Date(after))?.getTime() ?? null;
    },
    previous(before) {
      return cron.previousRuns(1, new Date(before))[0]?.getTime() ?? null;
    },
  };
}

/** Why `expression` is not a usable cron expression, or undefined when it is. */
export function cronProblem(expression: unknown): string | undefined {
  if (typeof expression !== "string" || expression.trim() === "") return "cron must be a 5-field cron expression string";
  try {
    const schedule = compileCron(expression.trim());
    if (schedule.next(Date.now()) === null) return `cron ${JSON.stringify(expression)} never fires`;
  } catch (error) {
    return `invalid cron ${JSON.stringify(expression)}: ${error instanceof Error ? error.message.replace(/^CronPattern: /, "") : String(error)}`;
  }
  return undefined;
}
