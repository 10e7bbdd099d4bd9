/**
 * The lifetime of session workspaces on a runner (docs/design/cloud-workspaces.md): a workspace
 * goes when its host deletes the session (`DELETE /v1/runner/sessions/:id`), when the host finds
 * at its start that the session is gone (`GET /v1/runner/workspaces`, then the same delete), and
 * when no turn has used it for the idle ttl (swept at the runner's start, then hourly).
 * @module
 */

/** The workspaces of one agent on this runner, as the runner's platform keeps them. */
export interface RunnerWorkspaces {
  /** The sessions with a workspace here, and when a turn last used each (epoch ms). */
  list(): Promise<Array<{ sessionId: string; usedAt: number }>>;
  /** Removes the session's workspace; nothing when it has none. */
  remove(sessionId: string): Promise<void>;
}

/** No turn for this long, and the workspace goes. @default 7 days */
export const WORKSPACE_IDLE_MS = 7 * 24 * 60 * 60 * 1000;
/** How often a runner looks for idle workspaces after its start. */
export const IDLE_SWEEP_EVERY_MS = 60 * 60 * 1000;

/**
 * Removes the workspaces of `agents` unused for `idleMs`, except those of `busy` sessions (a turn
 * runs there now); returns `agent/sessionId` of each removed one.
 */
export async function sweepIdleWorkspaces(
  agents: Record<string, RunnerWorkspaces | undefined>,
  idleMs: number,
  busy: (sessionId: string) => boolean,
  now: number,
): Promise<string[]> {
  const removed: string[] = [];
  for (const [agent, workspaces] of Object.entries(agents)) {
    if (!workspaces) continue;
    for (const { sessionId, usedAt } of await workspaces.list()) {
      if (usedAt + idleMs > now || busy(sessionId)) continue;
      await workspaces.remove(sessionId);
      removed.push(`${agent}/${sessionId}`);
    }
  }
  return removed;
}
