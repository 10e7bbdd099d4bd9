/**
 * agent-serve: serve conversational AI agents over HTTP.
 *
 * `createHost` builds the whole host as one fetch handler; `defineAgent` declares an agent's
 * configuration in `bot/agent.ts`.
 * @module
 */
export { createHost } from "./host.ts";
export { defineAgent } from "./project/define.ts";
// Every `define*` is also here: Agent SDK projects import `defineTool` and the rest from the root.
export { defineTool } from "./tools/index.ts";
export { defineHook } from "./hooks/index.ts";
export { defineArtifacts } from "./artifacts/index.ts";
export { defineSchedule } from "./schedules/index.ts";
export { defineEval, defineEvalConfig } from "./evals/index.ts";
export { defineSkill } from "./skills/index.ts";
export { defineConnection } from "./connections/index.ts";
export { defineExtension } from "./extensions/index.ts";
export { defineChannel } from "./channels/index.ts";
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
