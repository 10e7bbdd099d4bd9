/**
 * `agent-serve/schedules`: deploy-time cron work (`bot/schedules/<name>.ts`).
 * @module
 */
export { defineSchedule } from "./define.ts";
export type {
  MarkdownSchedule,
  RunSchedule,
  ScheduleContext,
  ScheduleDefinition,
  ScheduleFiring,
  ScheduleReceiveInput,
} from "./types.ts";
export type { ReminderCadence, ReminderInput, ReminderRecord, RemindersFacade, ReminderRunContext, ReminderRunResult } from "../reminders/types.ts";
