/**
 * `agent-serve/schedules`: deploy-time cron work (`bot/schedules/<name>.ts`).
 * @module
 */
export { defineSchedule } from "../features/schedules/define.ts";
export type {
  MarkdownSchedule,
  RunSchedule,
  ScheduleContext,
  ScheduleDefinition,
  ScheduleFiring,
  ScheduleReceiveInput,
} from "../base/definitions/schedules.ts";
export type { ReminderCadence, ReminderInput, ReminderRecord, RemindersFacade, ReminderRunContext, ReminderRunResult } from "../base/definitions/reminders.ts";
