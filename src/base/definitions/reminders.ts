/**
 * Reminders (docs/design/timed-work.md "Reminders"): runtime wakes bound to one channel
 * continuation, durable in storage. The record shape is that of docs/design/timed-work.md
 * "Reminders".
 * @module
 */
import type { ToolHostServices } from "./tools.ts";

export type ReminderStatus = "armed" | "stopped" | "disarmed";

/** Exactly one cadence: `delay` (one-shot), `every` (recurring) or `cron` (recurring, UTC). */
export type ReminderCadence = { delay: string; every?: never; cron?: never } | { every: string; delay?: never; cron?: never } | { cron: string; delay?: never; every?: never };

export interface ReminderRecord {
  id: string;
  purpose: string;
  channelId: string;
  /** The conversation key the reminder wakes. */
  continuationToken: string;
  /** The session the key pointed at when the reminder was armed, when there was one. */
  sessionId?: string;
  form: "prompt" | "run";
  delay?: string;
  every?: string;
  cron?: string;
  prompt?: string;
  until?: string;
  /** ISO 8601; null once the reminder no longer fires. */
  nextFireAt: string | null;
  fireCount: number;
  status: ReminderStatus;
  /** Why the host disarmed it: `handler_lost_on_restart`, `session_not_found`, `session_not_followable`. */
  disarmReason?: string;
  createdAt: string;
  lastFiredAt?: string;
}

interface ReminderInputBase {
  /** Why the reminder exists, shown to people and to the model. */
  purpose: string;
  channelId: string;
  continuationToken: string;
}

/** Prompt form: on fire, `prompt` is sent into the conversation as a follow-up. */
export type PromptReminderInput = ReminderInputBase &
  ReminderCadence & {
    /** @default "Reminder: <purpose>" */
    prompt?: string;
    /** A standing condition for the model: once it holds, the model should cancel the reminder. */
    until?: string;
    run?: never;
  };

/** Run form: on fire, `run` decides; no model turn unless it calls `followup`. Lost on restart. */
export type RunReminderInput = ReminderInputBase &
  ReminderCadence & {
    run(context: ReminderRunContext): ReminderRunResult | Promise<ReminderRunResult>;
    prompt?: never;
    until?: never;
  };

export type ReminderInput = PromptReminderInput | RunReminderInput;

export interface ReminderRunContext {
  /** 1 on the first firing. */
  fireCount: number;
  reminder: ReminderRecord;
  /** Host services (`kv`, `reminders`, ...), as tools see them. */
  host: ToolHostServices;
  /** Sends `message` into the reminder's conversation as a follow-up (a model turn). */
  followup(input: { message: string }): Promise<void>;
}

/** `stop` ends the reminder; `skip` and `delivered` are per-firing outcomes. */
export interface ReminderRunResult {
  action: "stop" | "skip" | "delivered";
}

export interface ReminderListFilter {
  channelId?: string;
  continuationToken?: string;
  /** Also list stopped and disarmed reminders. @default false */
  all?: boolean;
}

/** `ctx.host.reminders` of tools and schedule handlers. */
export interface RemindersFacade {
  /** Arms a reminder; resolves with its record (`id`, `nextFireAt`, ...). Throws on invalid input. */
  create(input: ReminderInput): Promise<ReminderRecord>;
  /** Armed reminders (all of them with `all`), optionally of one conversation, oldest first. */
  list(filter?: ReminderListFilter): Promise<ReminderRecord[]>;
  /** Stops a reminder; resolves with its record, or undefined when there is no such reminder. */
  cancel(id: string): Promise<ReminderRecord | undefined>;
}
