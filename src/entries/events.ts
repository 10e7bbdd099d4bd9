/**
 * `agent-serve/events`: the event vocabulary (every event type and its payload), the response
 * shapes of the routes, the schema a client parses stream lines with, and the fold that reads a
 * session's reply from its events. The core, the CLI, the playground and the tests all read these.
 * @module
 */
export {
  EVENT_FORMAT_VERSION,
  type ActionRequest,
  type ActionResultData,
  type ArtifactEventView,
  type BudgetExceededData,
  type EventDataMap,
  type EventDraft,
  type EventEnvelope,
  type EventType,
  type SessionEvent,
  SETTLING_EVENTS,
  isEvent,
} from "../base/events/vocabulary.ts";
export type { BudgetLimitName, BudgetLimits, BudgetReport, BudgetScope, BudgetScopeReport, BudgetUsage, BudgetsConfig } from "../base/definitions/budgets.ts";
export { type ReplyState, emptyReplyState, foldReply } from "../base/events/reply-fold.ts";
export { type FollowOptions, type FollowableLog, type LineBatch, followLog } from "../base/events/follow.ts";
export { eventEnvelopeSchema, parseEventLine } from "../base/events/parse.ts";
export type * from "../http/response-types.ts";
