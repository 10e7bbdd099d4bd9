/**
 * Hooks (`bot/hooks/**`): side effects run after each event is recorded, for every session.
 * @module
 */
import type { ArtifactsFacade } from "../artifacts/types.ts";
import type { SessionEvent } from "../sessions/events.ts";
import type { ToolHostServices, ToolSessionView } from "../tools/types.ts";
import type { HostLogger } from "../types.ts";

export interface HookContext {
  session: ToolSessionView;
  channel: { id: string };
  /** The host services tools see (`kv`, `otel`, `reminders`, ...). */
  host: ToolHostServices;
  artifacts: ArtifactsFacade;
  logger: HostLogger;
}

export type HookHandler = (event: Readonly<SessionEvent>, context: HookContext) => unknown;

export interface HookDefinition {
  /** Keys are event types or `*`. */
  events: Record<string, HookHandler>;
}
