/**
 * An agent's timed work (docs/design/timed-work.md): its reminders and the runner of its schedules,
 * whose firings start sessions like any other send, and the sweep of its expired MCP tool tasks
 * (docs/design/mcp-task-expiry.md).
 * @module
 */
import type { HostLogger } from "../base/logging.ts";
import type { ProjectDefinition } from "../base/definitions/project.ts";
import type { Sessions } from "../base/definitions/session-face.ts";
import type { RuntimePort } from "../base/ports/runtime.ts";
import type { TimerPort } from "../base/ports/timers.ts";
import type { StorageDriver } from "../base/storage/types.ts";
import type { ToolContextServices } from "../engine/turns/tool-context.ts";
import type { ReminderService } from "../features/reminders/service.ts";
import { dispatchSchedule } from "../features/schedules/dispatch.ts";
import { ScheduleRunner } from "../features/schedules/runner.ts";
import { createExclusive } from "../base/storage/exclusive.ts";
import { TimedWork } from "../features/timers/timed-work.ts";
import { McpTaskExpiry } from "../features/mcp/task-expiry.ts";

/** Host-wide facts the agent's timed work needs. */
export interface AgentTimersContext {
  timers: TimerPort;
  /** This host instance, as lease owner. */
  owner: string;
  /** Whether slots fire from `tick` (off under `--no-schedules`). */
  automaticSchedules: boolean;
  /** `--no-control-plane`: the internal fire routes are mounted. */
  internalRoutes: boolean;
}

export function createTimedWork(parts: {
  slug: string;
  project: ProjectDefinition;
  storage: StorageDriver;
  sessions: Sessions;
  reminders: ReminderService;
  toolServices: ToolContextServices;
  runtime: RuntimePort | undefined;
  context: AgentTimersContext;
  now: () => number;
  logger: HostLogger;
}): TimedWork {
  const { project, storage, sessions, reminders, toolServices, runtime, context, now, logger } = parts;
  return new TimedWork({
    reminders,
    mcpTasks: new McpTaskExpiry({ storage, timers: context.timers, keyPrefix: parts.slug, now, logger }),
    internalRoutes: context.internalRoutes,
    now,
    schedules: (waitUntil) =>
      new ScheduleRunner({
        schedules: project.schedules ?? {},
        storage,
        exclusive: createExclusive(storage, context.owner),
        timers: context.timers,
        keyPrefix: parts.slug,
        now,
        logger,
        automatic: context.automaticSchedules,
        dispatch: (id, definition, slot) =>
          dispatchSchedule(
            { sessions, tools: project.tools ?? {}, toolServices, runtime, reminders: reminders.facade, logger, waitUntil },
            id,
            definition,
            slot,
          ),
      }),
  });
}
