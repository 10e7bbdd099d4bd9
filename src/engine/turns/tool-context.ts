/**
 * Builds the execution context a server tool receives (docs/design/tools.md "Tools": execution
 * context).
 * @module
 */
import type { ArtifactsFacade } from "../../base/definitions/artifacts.ts";
import type { RuntimePort } from "../../base/ports/runtime.ts";
import type { SendOptions, SendResult } from "../../base/definitions/sessions.ts";
import type { SessionSummary } from "../../base/definitions/sessions.ts";
import type { SessionRecord } from "../../base/definitions/sessions.ts";
import type { ToolContext, ToolHostServices, ToolSessionView } from "../../base/definitions/tools.ts";

export interface ToolContextServices {
  send(channelId: string, message: string, options?: SendOptions): Promise<SendResult>;
  find(sessionId: string): Promise<SessionSummary | null>;
  artifacts(bound?: { sessionId: string; turnId?: string }): ArtifactsFacade;
  runtime: RuntimePort | undefined;
  /** Host services tools see as `ctx.host` (kv, otel, reminders, ...). */
  host: ToolHostServices;
}

/**
 * Where a call runs: a stored session (`record`), or, for a session-less direct call, its
 * scratch session (../tools/scratch-session.ts), which no artifact can be attributed to.
 */
export type ToolCallScope = {
  toolCallId: string;
  turnId: string | undefined;
  workspaceDir: string | undefined;
  signal: AbortSignal;
} & ({ record: SessionRecord } | { record: undefined; scratch: ToolSessionView });

export function createToolContext(services: ToolContextServices, scope: ToolCallScope): ToolContext {
  const session = scope.record ? sessionView(scope.record) : scope.scratch;
  // Artifacts are bound to stored sessions only: a scratch session has no stream to tag on.
  const bound = scope.record ? session : undefined;
  return {
    toolCallId: scope.toolCallId,
    session,
    workspaceDir: scope.workspaceDir,
    stateRoot: services.runtime?.stateRoot,
    host: services.host,
    send: (channelId, message, options) => services.send(channelId, message, options),
    async getSession(channelId, sessionId) {
      const summary = await services.find(sessionId);
      return summary && summary.channel === channelId ? summary : null;
    },
    artifacts: services.artifacts(
      bound ? { sessionId: bound.id, ...(scope.turnId === undefined ? {} : { turnId: scope.turnId }) } : undefined,
    ),
    signal: scope.signal,
  };
}

/** The read-only session view tools and hooks see. */
export function sessionView(record: SessionRecord): ToolSessionView {
  return Object.freeze({
    id: record.sessionId,
    channel: record.channel,
    mode: record.mode,
    auth: Object.freeze({ ...record.owner }),
    ...(record.purpose === undefined ? {} : { purpose: record.purpose }),
    ...(record.title === undefined ? {} : { title: record.title }),
  });
}
