/**
 * Schedules (docs/design/timed-work.md "Schedules"): deploy-time cron work of an agent, defined in
 * `bot/schedules/`.
 * @module
 */
import type { ToolHostServices } from "./tools.ts";
import type { AuthContext } from "../auth.ts";
import type { JsonValue } from "../ports/model.ts";
import type { RemindersFacade } from "./reminders.ts";
import type { SendResult } from "./sessions.ts";

interface ScheduleBase {
  /** Standard 5-field cron expression, evaluated in UTC with minute granularity. */
  cron: string;
  /**
   * Fire once, late, when slots were missed while the host was not running. Without it a missed
   * slot is only logged.
   * @default false
   */
  catchUp?: boolean;
}

/** Each firing starts a task-mode session with `markdown` as its message. */
export interface MarkdownSchedule extends ScheduleBase {
  markdown: string;
  run?: never;
}

/** Each firing calls `run`; it decides what to do (hand off into channels, call tools, arm reminders). */
export interface RunSchedule extends ScheduleBase {
  run(context: ScheduleContext): unknown;
  markdown?: never;
}

/** `bot/schedules/<name>.ts` (`defineSchedule`) or `<name>.md` (cron frontmatter, body is the prompt). */
export type ScheduleDefinition = MarkdownSchedule | RunSchedule;

export interface ScheduleReceiveInput {
  message: string;
  /** The principal the conversation belongs to. @default appAuth */
  auth?: AuthContext;
  /** Continue the conversation this channel key points at; without one a conversation starts. */
  continuationToken?: string;
  title?: string;
}

/** What a `run` handler receives. */
export interface ScheduleContext {
  scheduleId: string;
  /** The due minute being fired (ISO 8601), or undefined for a hand-fired run (dev route). */
  slot: string | undefined;
  /** Hands a message into a channel of this agent: starts or continues a conversation there. */
  receive(channelId: string, input: ScheduleReceiveInput): Promise<SendResult>;
  /** Calls a server tool of this agent directly, with no session and no model turn. */
  callTool(name: string, input?: unknown): Promise<{ isError: boolean; result: JsonValue }>;
  /** Keeps background work alive past `run`'s return; the host waits for it when it closes. */
  waitUntil(promise: Promise<unknown>): void;
  /** The schedule's own principal: `{authenticator: "schedule", principalId: "schedule:<id>"}`. */
  appAuth: AuthContext;
  host: ToolHostServices & { reminders: RemindersFacade };
}

/** One firing of a schedule: the sessions it started. */
export interface ScheduleFiring {
  scheduleId: string;
  sessionIds: string[];
  /** Set when the run handler threw; the firing still counts. */
  error?: string;
}
