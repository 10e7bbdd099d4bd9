/**
 * One firing of a schedule: the production path shared by the cron runner, the dev route and
 * the internal fire route. A markdown schedule starts a task session on the `schedule` channel;
 * a run schedule calls its handler with the schedule context.
 * @module
 */
import type { AuthContext } from "../../base/auth.ts";
import type { JsonValue } from "../../base/ports/model.ts";
import type { RemindersFacade } from "../../base/definitions/reminders.ts";
import type { RuntimePort } from "../../base/ports/runtime.ts";
import type { Sessions } from "../../base/definitions/session-face.ts";
import { runServerTool, toolCallIdForDirectCall } from "../../engine/tools/run-tool.ts";
import { scratchSession } from "../../engine/tools/scratch-session.ts";
import { validateToolInput } from "../../engine/tools/schema.ts";
import type { ToolDefinition } from "../../base/definitions/tools.ts";
import { type ToolContextServices, createToolContext } from "../../engine/turns/tool-context.ts";
import type { HostLogger } from "../../base/logging.ts";
import type { ScheduleContext, ScheduleDefinition, ScheduleFiring } from "../../base/definitions/schedules.ts";
import { errorMessage } from "../../base/errors.ts";

/** The channel id of schedule-started task sessions. */
export const SCHEDULE_CHANNEL = "schedule";

export interface DispatchDeps {
  sessions: Sessions;
  tools: Record<string, ToolDefinition>;
  toolServices: ToolContextServices;
  runtime: RuntimePort | undefined;
  reminders: RemindersFacade;
  logger: HostLogger;
  /** Background work of run handlers; the host waits for it when it closes. */
  waitUntil(promise: Promise<unknown>): void;
}

/** The schedule-scoped principal (docs/design/timed-work.md "Schedules": appAuth); it owns the sessions a firing starts. */
export function schedulePrincipal(scheduleId: string): AuthContext {
  return { authenticator: "schedule", principalId: `schedule:${scheduleId}`, principalType: "service" };
}

export async function dispatchSchedule(
  deps: DispatchDeps,
  scheduleId: string,
  definition: ScheduleDefinition,
  slot: number | undefined,
): Promise<ScheduleFiring> {
  const appAuth = schedulePrincipal(scheduleId);
  const at = slot === undefined ? undefined : new Date(slot).toISOString();
  deps.logger.info(`schedule ${scheduleId} fired ${at === undefined ? "by hand" : `for ${at}`}`, { event: "schedule.fired", scheduleId, ...(at ? { slot: at } : {}) });
  if (typeof definition.markdown === "string") {
    const sent = await deps.sessions.send(SCHEDULE_CHANNEL, definition.markdown, { mode: "task", auth: appAuth, title: scheduleId });
    return dispatched(deps, { scheduleId, sessionIds: [sent.sessionId] });
  }
  const sessionIds: string[] = [];
  const context: ScheduleContext = {
    scheduleId,
    slot: slot === undefined ? undefined : new Date(slot).toISOString(),
    async receive(channelId, input) {
      const sent = await deps.sessions.send(channelId, input.message, {
        auth: input.auth ?? appAuth,
        ...(input.continuationToken === undefined ? {} : { continuationToken: input.continuationToken }),
        ...(input.title === undefined ? {} : { title: input.title }),
      });
      if (!sessionIds.includes(sent.sessionId)) sessionIds.push(sent.sessionId);
      return sent;
    },
    callTool: (name, input) => callTool(deps, name, input, appAuth),
    waitUntil(promise) {
      deps.waitUntil(
        Promise.resolve(promise).catch((error: unknown) => deps.logger.error(`schedule ${scheduleId}: waitUntil work failed`, error)),
      );
    },
    appAuth,
    host: { ...deps.toolServices.host, reminders: deps.reminders },
  };
  try {
    await definition.run(context);
    return dispatched(deps, { scheduleId, sessionIds });
  } catch (error) {
    deps.logger.error(`schedule ${scheduleId}: run threw`, error);
    return { scheduleId, sessionIds, error: errorMessage(error) };
  }
}

// --- internals ---

/**
 * Names the sessions a firing started: the session's own lines may be logged by another host
 * (on Workers, its Durable Object's; docs/design/cloudflare.md "Where turns run").
 */
function dispatched(deps: DispatchDeps, firing: ScheduleFiring): ScheduleFiring {
  if (firing.sessionIds.length > 0) {
    deps.logger.info(`schedule ${firing.scheduleId} started ${firing.sessionIds.join(", ")}`, { event: "schedule.dispatched", ...firing });
  }
  return firing;
}

/**
 * A session-less direct call, as `POST /v1/tools/:toolName` without `sessionId` makes it; its
 * scratch session is on the `schedule` channel, owned by the schedule principal.
 */
async function callTool(deps: DispatchDeps, name: string, raw: unknown, appAuth: AuthContext): Promise<{ isError: boolean; result: JsonValue }> {
  const definition = Object.hasOwn(deps.tools, name) ? deps.tools[name] : undefined;
  if (!definition) throw new Error(`[agent-serve] [schedules] no tool named ${JSON.stringify(name)}`);
  if (definition.execution === "agent") throw new Error(`[agent-serve] [schedules] ${name} runs where the agent runs and cannot be called on the host`);
  const input = await validateToolInput(definition, raw ?? {});
  const scratch = await deps.runtime?.scratchWorkspace();
  try {
    const context = createToolContext(deps.toolServices, {
      toolCallId: toolCallIdForDirectCall(name),
      record: undefined,
      scratch: scratchSession(appAuth, SCHEDULE_CHANNEL),
      turnId: undefined,
      workspaceDir: scratch?.path,
      signal: new AbortController().signal,
    });
    return await runServerTool(definition, input, context);
  } finally {
    await scratch?.remove();
  }
}
