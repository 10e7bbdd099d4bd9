/**
 * Any MCP tool call run as a task of the Tasks extension (docs/design/mcp-tool-tasks.md): the call
 * starts in the background and the client polls `tasks/get`. The task is a stored record, not
 * memory, so any process sharing the store answers for it and a restart loses nothing: the record
 * says `working` while a runner holds the task's lease (renewed as the call runs), then the result.
 * A `working` task whose lease lapsed lost its runner to a crash and is reported `failed`; a call
 * is never run twice. `tasks/cancel` marks the record, and the runner, here or in another process,
 * aborts the call at its next heartbeat.
 * @module
 */
import type { AuthContext } from "../../base/auth.ts";
import { HTTPError, conflict, notFound } from "../../base/errors.ts";
import { randomId } from "../../base/ids.ts";
import type { HostLogger } from "../../base/logging.ts";
import { mcpToolTaskKey, mcpToolTaskLeaseKey } from "../../base/storage/keys.ts";
import type { StorageDriver } from "../../base/storage/types.ts";
import { errorToolResult } from "./results.ts";
import { LATE_RESULT_MS, runnerGone, TOOL_TASK_TTL_MS, toolTaskExpiry, toolTaskTtl } from "./tool-task-lifetime.ts";
import type { McpTool } from "./stateless.ts";
import type { McpTasks } from "./stateless-2026.ts";

export interface ToolTaskDeps {
  storage: Pick<StorageDriver, "get" | "set" | "delete" | "acquireLease" | "releaseLease">;
  auth: AuthContext;
  closing: { subscribe(listener: () => void): () => void };
  logger: HostLogger;
  /** Told each task's expiry, so the host's sweep deletes it then (./task-expiry.ts). */
  expiry?: { track(taskId: string, at: number): void };
  /** How often the runner renews its lease (tests), and how long the lease lasts (the host's `leaseTtlMs`). */
  heartbeatMs?: number;
  leaseMs?: number;
}

/** A tool task's id: never a session id, so `/v1/mcp` tells it from an `ask` task. */
export const isToolTaskId = (taskId: string): boolean => /^mcptask_[A-Za-z0-9_-]{16,64}$/.test(taskId);

const POLL_INTERVAL_MS = 1000;
const HEARTBEAT_MS = 2000;
const LEASE_MS = 10_000;

type Status = "working" | "completed" | "failed" | "cancelled";

interface ToolTaskRecord {
  taskId: string;
  /** The principal that started it: the only one that may read or cancel it. */
  owner: string;
  tool: string;
  status: Status;
  statusMessage?: string;
  result?: unknown;
  error?: { code: number; message: string };
  createdAt: string;
  lastUpdatedAt: string;
  /** Records written before tasks had their own ttl have neither: the default, from the last update. */
  ttlMs?: number;
  expiresAt?: string;
}

/** Calls running in this process, by task id: what a cancel here aborts at once. */
const running = new Map<string, AbortController>();

export function toolTasks(deps: ToolTaskDeps, tools: readonly McpTool[]): McpTasks {
  const { storage, auth } = deps;
  const leaseMs = deps.leaseMs ?? LEASE_MS;
  // Renewed at least three times a lease, so a short host lease never lapses under a live runner.
  const heartbeatMs = deps.heartbeatMs ?? Math.max(50, Math.min(HEARTBEAT_MS, Math.floor(leaseMs / 3)));

  async function read(taskId: string): Promise<ToolTaskRecord> {
    const stored = isToolTaskId(taskId) ? await storage.get(mcpToolTaskKey(taskId)) : undefined;
    const record = stored === undefined ? undefined : (JSON.parse(stored) as ToolTaskRecord);
    if (!record || record.owner !== auth.principalId) throw unknownTask(taskId);
    // A running call is never cut; the sweep may not have come yet for an ended one.
    if (record.status !== "working" && Date.now() >= toolTaskExpiry(record)) {
      await storage.delete(mcpToolTaskKey(taskId));
      throw expiredTask(taskId);
    }
    return record;
  }

  /** Writes the task's end unless it ended already (a cancel got there first). */
  async function settle(taskId: string, change: Pick<ToolTaskRecord, "status"> & Partial<ToolTaskRecord>): Promise<ToolTaskRecord> {
    const stored = await storage.get(mcpToolTaskKey(taskId));
    if (stored === undefined) throw unknownTask(taskId);
    const record = JSON.parse(stored) as ToolTaskRecord;
    if (record.status !== "working") return record;
    const now = Date.now();
    const next: ToolTaskRecord = { ...record, ...change, lastUpdatedAt: new Date(now).toISOString() };
    // A call that outlived its task's ttl keeps its result a little, or no poll could ever see it.
    if (toolTaskExpiry(next) <= now) next.expiresAt = new Date(now + LATE_RESULT_MS).toISOString();
    await storage.set(mcpToolTaskKey(taskId), JSON.stringify(next));
    deps.expiry?.track(taskId, toolTaskExpiry(next));
    return next;
  }

  async function runCall(record: ToolTaskRecord, tool: McpTool, args: Record<string, unknown>, runner: string): Promise<void> {
    const { taskId } = record;
    const abort = new AbortController();
    running.set(taskId, abort);
    const unsubscribe = deps.closing.subscribe(() => abort.abort());
    const beat = setInterval(() => {
      void (async () => {
        await storage.acquireLease(mcpToolTaskLeaseKey(taskId), runner, leaseMs);
        const now = JSON.parse((await storage.get(mcpToolTaskKey(taskId))) ?? "null") as ToolTaskRecord | null;
        if (now?.status === "cancelled") abort.abort();
      })().catch((error: unknown) => deps.logger.error(`[mcp] task ${taskId}: heartbeat failed`, error));
    }, heartbeatMs);
    try {
      const result = await tool.call(args, abort.signal);
      // A call cut by a cancel or the host closing ended as nothing the client asked for.
      if (abort.signal.aborted) await settle(taskId, { status: "failed", error: { code: -32603, message: "the host stopped before the call finished" } });
      else await settle(taskId, { status: "completed", result });
    } catch (error) {
      if (HTTPError.isError(error)) await settle(taskId, { status: "completed", result: errorToolResult(error) });
      else if (abort.signal.aborted) await settle(taskId, { status: "failed", error: { code: -32603, message: "the host stopped before the call finished" } });
      else {
        deps.logger.error(`[mcp] task ${taskId}: tool ${tool.name} failed`, error);
        await settle(taskId, { status: "failed", error: { code: -32603, message: "internal error" } });
      }
    } finally {
      clearInterval(beat);
      unsubscribe();
      running.delete(taskId);
      await storage.releaseLease(mcpToolTaskLeaseKey(taskId), runner);
    }
  }

  return {
    async start(name, args, task = {}) {
      const tool = tools.find((candidate) => candidate.name === name);
      if (!tool) return undefined;
      const ttlMs = toolTaskTtl(task["ttl"]);
      const taskId = `mcptask_${randomId(24)}`;
      const runner = `runner_${randomId(12)}`;
      const at = Date.now();
      const now = new Date(at).toISOString();
      const record: ToolTaskRecord = {
        taskId,
        owner: auth.principalId,
        tool: tool.name,
        status: "working",
        createdAt: now,
        lastUpdatedAt: now,
        ttlMs,
        expiresAt: new Date(at + ttlMs).toISOString(),
      };
      // The lease first: a poll that finds the record never sees it without a runner.
      await storage.acquireLease(mcpToolTaskLeaseKey(taskId), runner, leaseMs);
      await storage.set(mcpToolTaskKey(taskId), JSON.stringify(record));
      deps.expiry?.track(taskId, toolTaskExpiry(record));
      void runCall(record, tool, args, runner).catch((error: unknown) => deps.logger.error(`[mcp] task ${taskId} could not be settled`, error));
      return { ...view(record), pollIntervalMs: POLL_INTERVAL_MS };
    },
    async get(taskId) {
      let record = await read(taskId);
      if (record.status === "working" && (await runnerGone(storage, taskId))) {
        record = await settle(taskId, { status: "failed", error: { code: -32603, message: "the process running the call stopped before it finished" } });
      }
      return view(record);
    },
    async update(taskId) {
      const record = await read(taskId);
      throw conflict("task_input_not_requested", `task ${taskId} (${record.tool}) asks for no input`);
    },
    async cancel(taskId) {
      const record = await read(taskId);
      if (record.status !== "working") throw conflict("task_finished", `task ${taskId} already ended: ${record.status}`);
      await settle(taskId, { status: "cancelled", statusMessage: "cancelled by the client" });
      running.get(taskId)?.abort();
    },
  };
}

// --- internals ---

/** The task as the extension's `DetailedTask` shows it. */
function view(record: ToolTaskRecord): Record<string, unknown> {
  const base = {
    taskId: record.taskId,
    status: record.status,
    createdAt: record.createdAt,
    lastUpdatedAt: record.lastUpdatedAt,
    ttlMs: record.ttlMs ?? TOOL_TASK_TTL_MS,
    ...(record.statusMessage ? { statusMessage: record.statusMessage } : {}),
  };
  switch (record.status) {
    case "working":
      return { ...base, pollIntervalMs: POLL_INTERVAL_MS };
    case "completed":
      // The call's own answer, framed as the revision frames every result (what a requester checks).
      return { ...base, result: { resultType: "complete", ...(record.result as object) } };
    case "failed":
      return { ...base, error: record.error };
    default:
      return base;
  }
}

const unknownTask = (taskId: string) => notFound("task_not_found", `no task ${JSON.stringify(taskId.slice(0, 120))} is visible to this caller (unknown, or expired and deleted)`);
const expiredTask = (taskId: string) => notFound("task_expired", `task ${JSON.stringify(taskId)} has expired: its ttl has passed and it was deleted`);
