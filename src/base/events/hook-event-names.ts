/**
 * The event types a hook may subscribe to (docs/guide/http-api.md "Events"), for checking hook
 * definitions.
 * @module
 */
import type { EventType } from "./vocabulary.ts";

const LIST = [
  "session.started",
  "ab.assigned",
  "session.forked",
  "session.waiting",
  "session.completed",
  "session.failed",
  "agent.bound",
  "message.received",
  "turn.queued",
  "turn.started",
  "turn.completed",
  "turn.failed",
  "step.started",
  "step.completed",
  "reasoning.appended",
  "reasoning.completed",
  "message.appended",
  "message.completed",
  "actions.requested",
  "action.result",
  "action.approval_requested",
  "action.approval_resolved",
  "action.client_requested",
  "subagent.called",
  "subagent.completed",
  "artifact.tagged",
  "budget.exceeded",

  "*",
] as const satisfies ReadonlyArray<EventType | "*">;

// Fails to compile when an event type is added without being listed above.
type Missing = Exclude<EventType, (typeof LIST)[number]>;
const everyEventListed: [Missing] extends [never] ? true : Missing = true;
void everyEventListed;

/** Every event type, plus `*` for all of them. */
export const HOOK_EVENT_NAMES: readonly string[] = LIST;
