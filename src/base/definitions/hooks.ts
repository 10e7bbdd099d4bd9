/**
 * Hooks (`bot/hooks/**`): side effects run after each event is recorded, for every session.
 * @module
 */
import type { ArtifactsFacade } from "./artifacts.ts";
import type { EventType, SessionEvent } from "../events/vocabulary.ts";
import type { ToolHostServices, ToolSessionView } from "./tools.ts";
import type { HostLogger } from "../logging.ts";

export interface HookContext {
  session: ToolSessionView;
  channel: { id: string };
  /** The host services tools see (`kv`, `otel`, `reminders`, ...). */
  host: ToolHostServices;
  artifacts: ArtifactsFacade;
  logger: HostLogger;
}

/** A hook's handler for events of type `T` (every type by default), with that type's payload. */
export type HookHandler<T extends EventType = EventType> = (event: Readonly<SessionEvent<T>>, context: HookContext) => unknown;

export interface HookDefinition {
  /** Keys are event types (the handler reads that type's payload) or `*` (every event). */
  events: { [K in EventType]?: HookHandler<K> } & { "*"?: HookHandler };
}
