/**
 * agent-serve: serve conversational AI agents over HTTP.
 *
 * `createHost` builds the whole host as one fetch handler; `defineAgent` declares an agent's
 * configuration in `bot/agent.ts`.
 * @module
 */
export { createHost } from "./host/host.ts";
export { defineAgent } from "./engine/project/define.ts";
// Every `define*` is also here: Agent SDK projects import `defineTool` and the rest from the root.
export { defineTool } from "./entries/tools.ts";
export { defineHook } from "./entries/hooks.ts";
export { defineArtifacts } from "./entries/artifacts.ts";
export { defineSchedule } from "./entries/schedules.ts";
export { defineEval, defineEvalConfig } from "./entries/evals.ts";
export { defineSkill } from "./entries/skills.ts";
export { defineConnection } from "./entries/connections.ts";
export { defineExtension } from "./entries/extensions.ts";
export { defineChannel } from "./entries/channels.ts";
export { prompt } from "./engine/project/prompt.ts";
export { HTTPError } from "./base/errors.ts";
export type { AgentHost, AgentHostOptions, AgentMount, ClosingSignal, CloudRuntimeOptions, RequestContext, SendOptions, SendResult, TickReport } from "./host/types.ts";
export type { DocsPage, DocsSite, PlaygroundAsset, PlaygroundSite } from "./http/site-types.ts";
export type { ModelCredentials, ModelOptions } from "./base/ports/model.ts";
export type { HostLogger, LogFields, LogLevel } from "./base/logging.ts";
// For a logger of one's own: a message without the internal `[agent-serve] [component]` tags.
export { plainMessage } from "./base/logger.ts";
export type { TimerPort } from "./base/ports/timers.ts";
export type { ReminderInput, ReminderRecord, RemindersFacade } from "./base/definitions/reminders.ts";
export type { ScheduleDefinition } from "./base/definitions/schedules.ts";
export type { AgentConfig, Diagnostic, ModelPrice, ProjectDefinition } from "./base/definitions/project.ts";
export type { AuthContext, AuthPolicy } from "./base/auth.ts";
export type { SessionEvent, EventType } from "./base/events/vocabulary.ts";
export type { StorageDriver } from "./base/storage/types.ts";
export type { LanguageModelPort, ModelStreamPart, ModelStepRequest, Usage } from "./base/ports/model.ts";
