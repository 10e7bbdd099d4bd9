/**
 * agent-serve: serve conversational AI agents over HTTP.
 *
 * `createHost` builds the whole host as one fetch handler; `defineAgent` declares an agent's
 * configuration in `bot/agent.ts`.
 * @module
 */
export { createHost } from "./host.ts";
export { defineAgent } from "./project/define.ts";
export { prompt } from "./project/prompt.ts";
export { HTTPError } from "./errors.ts";
export type {
  AgentHost,
  AgentHostOptions,
  AgentMount,
  DocsPage,
  DocsSite,
  PlaygroundAsset,
  PlaygroundSite,
  HostLogger,
  LogFields,
  LogLevel,
  ModelCredentials,
  ModelOptions,
  RequestContext,
  SendOptions,
  SendResult,
  TickReport,
} from "./types.ts";
export type { TimerPort } from "./timers/types.ts";
export type { ReminderInput, ReminderRecord, RemindersFacade } from "./reminders/types.ts";
export type { ScheduleDefinition } from "./schedules/types.ts";
export type { AgentConfig, Diagnostic, ModelPrice, ProjectDefinition } from "./project/types.ts";
export type { AuthContext, AuthPolicy } from "./http/auth-types.ts";
export type { SessionEvent, EventType } from "./sessions/events.ts";
export type { StorageDriver } from "./storage/types.ts";
export type { LanguageModelPort, ModelStreamPart, ModelStepRequest, Usage } from "./model/types.ts";
