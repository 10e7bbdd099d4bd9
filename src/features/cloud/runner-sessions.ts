/**
 * The host's side of runner workspace clean-up (docs/design/cloud-workspaces.md): a deleted
 * session's workspace is removed on every runner (any of them may have run one of its turns), and
 * at the host's start each runner is asked which sessions it keeps a workspace for, and told to
 * drop the ones this host no longer has. Best effort: a runner that is down misses the call, and
 * its idle sweep removes the workspace later.
 * @module
 */
import { errorMessage } from "../../base/errors.ts";
import type { HostLogger } from "../../base/logging.ts";
import { RUNNER_WORKSPACES_PATH, runnerSessionPath } from "./protocol.ts";
import { signRunnerRequest } from "./signing.ts";

export interface RunnerSessionsOptions {
  runners: readonly string[];
  secret: string;
  /** The host's slug of the agent, as runners know it. */
  agent: string;
  logger: HostLogger;
  /** Longest one call to a runner may take. @default 10000 */
  timeoutMs?: number;
}

export interface RunnerSessions {
  /** The session was deleted: every runner removes its workspace. */
  forget(sessionId: string): Promise<void>;
  /** Removes, on every runner (or `only` that one), the workspaces of this agent's sessions for which `exists` says no. */
  reconcile(exists: (sessionId: string) => Promise<boolean>, only?: string): Promise<string[]>;
}

export function runnerSessions(options: RunnerSessionsOptions): RunnerSessions {
  const runners = options.runners.map((url) => url.replace(/\/+$/, ""));
  const timeoutMs = options.timeoutMs ?? 10_000;

  async function call(runner: string, method: "GET" | "DELETE", path: string, body: string): Promise<Response> {
    const response = await fetch(`${runner}${path}`, {
      method,
      headers: { authorization: await signRunnerRequest(options.secret, method, path, body), ...(body ? { "content-type": "application/json" } : {}) },
      ...(body ? { body } : {}),
      signal: AbortSignal.timeout(timeoutMs),
    });
    if (!response.ok) throw new Error(`HTTP ${response.status} ${(await response.text().catch(() => "")).slice(0, 200)}`);
    return response;
  }

  async function forgetOn(runner: string, sessionId: string): Promise<void> {
    try {
      await call(runner, "DELETE", runnerSessionPath(sessionId), JSON.stringify({ agent: options.agent }));
    } catch (error) {
      options.logger.warn(`[cloud] runner ${runner} did not remove the workspace of ${options.agent}/${sessionId} (its idle sweep will): ${errorMessage(error)}`);
    }
  }

  return {
    async forget(sessionId) {
      await Promise.all(runners.map((runner) => forgetOn(runner, sessionId)));
    },
    async reconcile(exists, only) {
      const removed: string[] = [];
      await Promise.all(
        runners.filter((runner) => only === undefined || runner === only.replace(/\/+$/, "")).map(async (runner) => {
          let kept: string[];
          try {
            const listed = (await (await call(runner, "GET", RUNNER_WORKSPACES_PATH, "")).json()) as { agents?: Record<string, unknown> };
            const ids = listed.agents?.[options.agent];
            kept = Array.isArray(ids) ? ids.filter((id): id is string => typeof id === "string") : [];
          } catch (error) {
            options.logger.warn(`[cloud] cannot list the workspaces on runner ${runner}: ${errorMessage(error)}`);
            return;
          }
          for (const sessionId of kept) {
            if (await exists(sessionId)) continue;
            await forgetOn(runner, sessionId);
            removed.push(sessionId);
          }
        }),
      );
      return removed;
    },
  };
}
