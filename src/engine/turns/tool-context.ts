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

export interface ToolCallScope {
  toolCallId: string;
  record: SessionRecord | undefined;
  turnId: string | undefined;
  workspaceDir: string | undefined;
  signal: AbortSignal;
}

export function createToolContext(services: ToolContextServices, scope: ToolCallScope): ToolContext {
  const session = scope.record ? sessionView(scope.record) : undefined;
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
      session ? { sessionId: session.id, ...(scope.turnId === undefined ? {} : { turnId: scope.turnId }) } : undefined,
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
