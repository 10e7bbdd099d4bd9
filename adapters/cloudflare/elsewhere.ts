/**
 * Turn state that lives in the memory of the object running the turn (a parked approval, the
 * stop of a running turn) when that object is not the session's own (docs/design/cloudflare.md
 * "Where turns run"): a turn a schedule, channel, eval or `/v1/chat` started runs in the
 * coordinator. The session object answers first; when it has nothing (no parked call, nothing to
 * stop), the coordinator is asked the same question.
 * @module
 */

/** Requests the coordinator may answer better: approvals and stop. */
export function mayLiveElsewhere(request: Request): boolean {
  const path = new URL(request.url).pathname;
  return /\/approvals(\/[^/]+)?$/.test(path) || (request.method === "POST" && path.endsWith("/stop"));
}

/** Whether the session object's answer says "not here". */
export async function answeredNothing(response: Response): Promise<boolean> {
  if (response.status !== 200 && response.status !== 404) return false;
  const body = (await response.clone().json().catch(() => undefined)) as
    | { error?: string; approvals?: unknown[]; stopped?: boolean }
    | undefined;
  if (!body) return false;
  return body.error === "approval_not_found" || (Array.isArray(body.approvals) && body.approvals.length === 0) || body.stopped === false;
}
