/**
 * The session a session-less direct call runs in (docs/guide/http-api.md "Direct tool calls").
 * The contract lists `session` among the members of every tool context, so a call without
 * `sessionId` gets one too: a fresh `scratch_…` id that names no stored session, the `http`
 * channel (`schedule` for a schedule's `callTool`) and the caller's principal. Tools read
 * `ctx.session.id` without a guard.
 * @module
 */
import type { AuthContext } from "../../base/auth.ts";
import { randomId } from "../../base/ids.ts";
import type { ToolSessionView } from "../../base/definitions/tools.ts";

/**
 * A scratch session for one call: mode `task`, as nothing can follow it up.
 * @example
 * scratchSession(auth); // { id: "scratch_…", channel: "http", mode: "task", auth }
 */
export function scratchSession(auth: AuthContext, channel = "http"): ToolSessionView {
  return Object.freeze({ id: `scratch_${randomId(16)}`, channel, mode: "task", auth: Object.freeze({ ...auth }) });
}
