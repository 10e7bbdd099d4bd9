/**
 * The sweep of expired MCP tool tasks (docs/design/mcp-task-expiry.md): each stored task is
 * deleted once its ttl has passed, read or not. One timer key of the host's timer port is armed at
 * the earliest expiry this process knows (the tasks in the store when it started, and those it
 * started or ended since); with no task stored nothing is armed, so an idle host stays idle.
 * @module
 */
import type { HostLogger } from "../../base/logging.ts";
import type { TimerPort } from "../../base/ports/timers.ts";
import { MCP_TOOL_TASK_PREFIX, mcpToolTaskKey } from "../../base/storage/keys.ts";
import type { StorageDriver } from "../../base/storage/types.ts";
import { DueIndex } from "../reminders/due-index.ts";
import { runnerGone, toolTaskExpiry } from "./tool-task-lifetime.ts";

export interface TaskExpiryDeps {
  storage: Pick<StorageDriver, "entries" | "get" | "delete" | "acquireLease" | "releaseLease">;
  timers: TimerPort;
  /** The agent's slug: its timer key is its own among the agents of one host. */
  keyPrefix: string;
  now: () => number;
  logger: HostLogger;
}

/** How long a sweep waits to look again at an expired task whose call still runs. */
const RUNNING_RECHECK_MS = 60_000;

export class McpTaskExpiry {
  readonly #deps: TaskExpiryDeps;
  readonly #due = new DueIndex();
  /** The time the timer key is armed at; undefined while it is not (a port sees no needless disarm). */
  #armedAt: number | undefined;
  #closed = false;

  constructor(deps: TaskExpiryDeps) {
    this.#deps = deps;
  }

  /** Loads the stored tasks' expiries; those already past are swept at the first tick. */
  async start(): Promise<void> {
    for (const [key, value] of await this.#deps.storage.entries(MCP_TOOL_TASK_PREFIX)) {
      const at = expiryOf(value);
      if (at !== undefined) this.#due.set(key.slice(MCP_TOOL_TASK_PREFIX.length), at);
    }
    this.#rearm();
  }

  /** A task started or ended here: swept at `at`. */
  track(taskId: string, at: number): void {
    if (this.#closed) return;
    this.#due.set(taskId, at);
    this.#rearm();
  }

  /** Deletes the tasks whose expiry has come; returns their ids. */
  async tick(now: number): Promise<string[]> {
    if (this.#closed) return [];
    // The clock forgets a key once its time has come: after a tick the key is armed (or disarmed) again.
    const fired = this.#armedAt !== undefined && this.#armedAt <= now;
    const swept: string[] = [];
    for (const taskId of this.#due.takeDue(now)) {
      try {
        const stored = await this.#deps.storage.get(mcpToolTaskKey(taskId));
        if (stored === undefined) continue;
        const record = JSON.parse(stored) as { status?: string; expiresAt?: string; lastUpdatedAt: string };
        const at = toolTaskExpiry(record);
        // Ended or extended by another process since this one learned the expiry.
        if (at > now) this.#due.set(taskId, at);
        // A call still running is never cut: its end sets the expiry again. One whose runner
        // died (no lease) never ends, and goes now.
        else if (record.status === "working" && !(await runnerGone(this.#deps.storage, taskId))) this.#due.set(taskId, now + RUNNING_RECHECK_MS);
        else {
          await this.#deps.storage.delete(mcpToolTaskKey(taskId));
          swept.push(taskId);
        }
      } catch (error) {
        this.#deps.logger.error(`[mcp] task ${taskId}: the expiry sweep failed; retried later`, error);
        this.#due.set(taskId, now + RUNNING_RECHECK_MS);
      }
    }
    this.#rearm(fired);
    return swept;
  }

  close(): void {
    this.#closed = true;
    if (this.#armedAt !== undefined) this.#deps.timers.disarm(this.#timerKey());
    this.#armedAt = undefined;
  }

  // --- internals ---

  #rearm(force = false): void {
    if (this.#closed) return;
    const next = this.#due.peek();
    if (next === this.#armedAt && !force) return;
    if (next === undefined) this.#deps.timers.disarm(this.#timerKey());
    else this.#deps.timers.arm(this.#timerKey(), next);
    this.#armedAt = next;
  }

  #timerKey(): string {
    return `${this.#deps.keyPrefix}/mcp-tasks`;
  }
}

function expiryOf(value: string): number | undefined {
  try {
    const at = toolTaskExpiry(JSON.parse(value) as { expiresAt?: string; lastUpdatedAt: string });
    return Number.isFinite(at) ? at : undefined;
  } catch {
    return undefined;
  }
}
