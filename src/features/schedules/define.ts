import type { MarkdownSchedule, RunSchedule } from "../../base/definitions/schedules.ts";

/**
 * Declares a schedule in `bot/schedules/<name>.ts`: a cron expression and exactly one of
 * `markdown` (each firing starts a task session with it) or `run` (each firing calls it).
 * A typed identity function.
 * @example
 * export default defineSchedule({ cron: "0 9 * * 1-5", markdown: "Summarize yesterday's tickets." });
 * @example
 * export default defineSchedule({
 *   cron: "0 * * * *",
 *   async run({ receive }) {
 *     await receive("ops", { message: "Check the queue depth.", continuationToken: "ops:queue" });
 *   },
 * });
 */
export function defineSchedule<const T extends MarkdownSchedule | RunSchedule>(definition: T): T {
  return definition;
}
