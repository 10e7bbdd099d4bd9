/**
 * Runs hooks after each event is recorded, for every session of the agent. A hook's handlers run
 * in event order; a throwing handler is logged and skipped, and never affects the turn.
 * @module
 */
import type { ArtifactsFacade } from "../../base/definitions/artifacts.ts";
import type { EventType, SessionEvent } from "../../base/events/vocabulary.ts";
import type { SessionRecord } from "../../base/definitions/sessions.ts";
import { sessionView } from "../turns/tool-context.ts";
import type { ToolHostServices } from "../../base/definitions/tools.ts";
import type { HostLogger } from "../../base/logging.ts";
import type { HookDefinition, HookHandler } from "../../base/definitions/hooks.ts";

export interface HookDispatchDeps {
  hooks: Record<string, HookDefinition>;
  /** Reads the record of the event's session (cached here, since events come in bursts). */
  record(sessionId: string): Promise<SessionRecord | undefined>;
  artifacts(bound: { sessionId: string; turnId?: string }): ArtifactsFacade;
  /** Host services hooks see as `ctx.host`, as tools do. */
  host: ToolHostServices;
  logger: HostLogger;
}

const RECORD_CACHE = 256;

/** Returns the event listener to register on the event log, or undefined with no hooks. */
export function createHookDispatcher(deps: HookDispatchDeps): ((event: SessionEvent) => void) | undefined {
  const hooks = Object.entries(deps.hooks);
  if (hooks.length === 0) return undefined;
  const queues = new Map<string, Promise<void>>();
  const records = new Map<string, Promise<SessionRecord | undefined>>();

  const recordOf = (sessionId: string): Promise<SessionRecord | undefined> => {
    let record = records.get(sessionId);
    if (!record) {
      record = deps.record(sessionId);
      records.set(sessionId, record);
      if (records.size > RECORD_CACHE) records.delete(records.keys().next().value as string);
    }
    return record;
  };

  return (event) => {
    for (const [name, hook] of hooks) {
      // The handler for the type, then the `*` handler: `*` sees every event.
      for (const key of [event.type, "*"]) {
        // SAFETY: the handler under an event's own type (or `*`) takes that event.
        const handler = hook.events[key as EventType] as HookHandler | undefined;
        if (typeof handler !== "function") continue;
        const previous = queues.get(name) ?? Promise.resolve();
        queues.set(name, previous.then(() => run(name, handler, event)));
      }
    }
  };

  async function run(name: string, handler: HookHandler, event: SessionEvent): Promise<void> {
    try {
      const record = await recordOf(event.sessionId);
      if (!record) return;
      // SAFETY: a frozen copy of the same event, payload included.
      await handler(Object.freeze({ ...event, data: Object.freeze({ ...event.data }) }) as SessionEvent, {
        session: sessionView(record),
        channel: { id: record.channel },
        host: deps.host,
        artifacts: deps.artifacts({ sessionId: event.sessionId, ...(event.turnId ? { turnId: event.turnId } : {}) }),
        logger: deps.logger,
      });
    } catch (error) {
      deps.logger.error(`hook ${name} failed on ${event.type} of ${event.sessionId}; skipped`, error);
    }
  }
}
