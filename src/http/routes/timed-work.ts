/**
 * Timed-work routes: the dev-mode routes (docs/design/timed-work.md "Routes") that fire schedules
 * and reminders by hand and list reminders, and the platform timer routes
 * (docs/design/timed-work.md "Routes") through which a platform fires timed work under
 * `--no-control-plane`.
 *
 * The route table is static, so these answer 404 `not_found` (as an unknown route does) when
 * their mode is off.
 * @module
 */
import { HTTPError, conflict, notFound } from "../../base/errors.ts";
import { isReminderId } from "../../features/reminders/store.ts";
import { authenticate } from "../auth-chain.ts";
import { json } from "../../base/responses.ts";
import { type RouteContext, defineRoute } from "../route.ts";

/** The marker header of platform timer calls; the alias proxy strips it from external traffic. */
export const TIMED_WORK_HEADER = "x-agent-serve-timed-work";

/** The internal route accepts a platform clock this far ahead of ours for a reminder's due time. */
const PLATFORM_SKEW_MS = 5_000;

export const devFireSchedule = defineRoute({
  method: "POST",
  path: "/v1/dev/schedules/:scheduleId",
  auth: "agent",
  summary: "Fire a schedule once by hand, through the production path (dev mode only)",
  async handler(context) {
    devOnly(context);
    const scheduleId = context.params["scheduleId"] ?? "";
    const firing = await context.agent.timed.schedules.fireByHand(scheduleId);
    return json({ scheduleId, sessionIds: firing.sessionIds, ...(firing.error === undefined ? {} : { error: firing.error }) });
  },
});

export const devListReminders = defineRoute({
  method: "GET",
  path: "/v1/dev/reminders",
  auth: "agent",
  summary: "Every reminder of the agent, armed or not (dev mode only)",
  async handler(context) {
    devOnly(context);
    return json({ reminders: await context.agent.timed.reminders.list({ all: true }) });
  },
});

export const devFireReminder = defineRoute({
  method: "POST",
  path: "/v1/dev/reminders/:reminderId",
  auth: "agent",
  summary: "Fire an armed reminder by hand, whatever its due time (dev mode only)",
  async handler(context) {
    devOnly(context);
    const reminderId = reminderParam(context);
    const { reminders } = context.agent.timed;
    const outcome = await reminders.fire(reminderId, { now: context.agent.timed.now(), mode: "force" });
    if (!outcome.record) throw reminderNotFound();
    if (!outcome.fired) throw conflict("reminder_not_armed", `the reminder is ${outcome.record.status}; only armed reminders fire`);
    return json({ reminderId, reminder: outcome.record });
  },
});

export const internalFireSchedule = defineRoute({
  method: "POST",
  path: "/v1/internal/schedules/:scheduleId/fire",
  auth: "none",
  summary: "Platform timer: fire the schedule's due slot once (--no-control-plane only)",
  async handler(context) {
    await internalOnly(context);
    const scheduleId = context.params["scheduleId"] ?? "";
    const firing = await context.agent.timed.schedules.fireFromPlatform(scheduleId, context.agent.timed.now());
    return json({ ok: true, scheduleId, sessionIds: firing.sessionIds });
  },
});

export const internalFireReminder = defineRoute({
  method: "POST",
  path: "/v1/internal/reminders/:reminderId/fire",
  auth: "none",
  summary: "Platform timer: fire the reminder if it is due (--no-control-plane only)",
  async handler(context) {
    await internalOnly(context);
    const reminderId = reminderParam(context);
    const outcome = await context.agent.timed.reminders.fire(reminderId, { now: context.agent.timed.now(), mode: "due", leewayMs: PLATFORM_SKEW_MS });
    if (!outcome.record) throw reminderNotFound();
    return json({ ok: true, reminderId, fired: outcome.fired });
  },
});

// --- internals ---

function devOnly(context: RouteContext): void {
  if (!context.host.dev) throw notFound("not_found", "no such route");
}

/**
 * The marker header alone is not a credential (any client can send it): the caller must also pass
 * the host-level chain of the start-up flags, loopback, bearer token or anonymous
 * (docs/guide/http-api.md, docs/design/faults.md).
 */
async function internalOnly(context: RouteContext): Promise<void> {
  if (!context.agent.timed.internalRoutes) throw notFound("not_found", "no such route");
  if (!context.request.headers.has(TIMED_WORK_HEADER)) {
    throw new HTTPError({ status: 403, code: "forbidden", message: `platform timer routes need the ${TIMED_WORK_HEADER} header` });
  }
  await authenticate(context.host.hostPolicies, context.request, context.ip === undefined ? {} : { ip: context.ip });
}

function reminderParam(context: RouteContext): string {
  const id = context.params["reminderId"] ?? "";
  if (!isReminderId(id)) throw reminderNotFound();
  return id;
}

const reminderNotFound = (): HTTPError => notFound("reminder_not_found", "no reminder with that id");
