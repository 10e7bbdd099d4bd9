/**
 * How long an MCP tool task lives and whether its runner is gone (docs/design/mcp-task-expiry.md),
 * apart from the tasks themselves: the expiry sweep the host composes at start needs these and
 * nothing of the MCP SDK, which only the MCP routes load.
 * @module
 */
import { badRequest } from "../../base/errors.ts";
import { randomId } from "../../base/ids.ts";
import { mcpToolTaskLeaseKey } from "../../base/storage/keys.ts";
import type { StorageDriver } from "../../base/storage/types.ts";

/** A task's ttl when its request asks for none (docs/design/mcp-task-expiry.md). */
export const TOOL_TASK_TTL_MS = 24 * 60 * 60 * 1000;
/** The longest ttl a request may ask for; a longer one is cut to this. */
export const MAX_TOOL_TASK_TTL_MS = 7 * 24 * 60 * 60 * 1000;
/** The shortest: a shorter one is raised to this, so a client polling every second sees the end. */
export const MIN_TOOL_TASK_TTL_MS = 1000;
/** How long the result of a call that ended after its task's expiry stays readable. */
export const LATE_RESULT_MS = 60_000;

/**
 * The ttl a task's request asks for (`params.task.ttl`, milliseconds, as MCP's tasks spec names
 * it), kept within the host's bounds; the default when it asks for none.
 */
export function toolTaskTtl(requested: unknown): number {
  if (requested === undefined || requested === null) return TOOL_TASK_TTL_MS;
  if (typeof requested !== "number" || !Number.isInteger(requested) || requested < 0) {
    throw badRequest("params.task.ttl must be a whole number of milliseconds, 0 or more");
  }
  return Math.min(Math.max(requested, MIN_TOOL_TASK_TTL_MS), MAX_TOOL_TASK_TTL_MS);
}

/** When a stored task record expires, in epoch milliseconds. */
export function toolTaskExpiry(record: { expiresAt?: string; lastUpdatedAt: string }): number {
  return record.expiresAt === undefined ? Date.parse(record.lastUpdatedAt) + TOOL_TASK_TTL_MS : Date.parse(record.expiresAt);
}

/** Whether a `working` task's runner is gone: its lease, renewed while it runs, lapsed. */
export async function runnerGone(storage: Pick<StorageDriver, "acquireLease" | "releaseLease">, taskId: string): Promise<boolean> {
  const probe = `probe_${randomId(12)}`;
  if (!(await storage.acquireLease(mcpToolTaskLeaseKey(taskId), probe, 1000))) return false;
  await storage.releaseLease(mcpToolTaskLeaseKey(taskId), probe);
  return true;
}
