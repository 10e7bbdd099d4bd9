/**
 * `ListTasks` (docs/guide/a2a.md "Listing"): the caller's A2A tasks, newest first, filtered by
 * context and state, in pages. The cursor names the last task of the page by its creation time
 * and id, both fixed, so a page never repeats or skips a task that existed when the first was read.
 * The filtering and paging read each context's task index (./task-index.ts), not its whole log.
 * @module
 */
import type { AuthContext } from "../../base/auth.ts";
import { type A2AAgent, A2A_CHANNEL } from "./agent.ts";
import { invalidParams } from "./errors.ts";
import { isObject } from "./incoming.ts";
import type { TaskFold, TaskView } from "./task-fold.ts";
import { type IndexedTask, indexedTasks } from "./task-index.ts";
import { readContext } from "./task-read.ts";
import { TASK_STATES, type Task, type TaskState } from "./wire.ts";

export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 100;

export interface ListTasksQuery {
  contextId?: string;
  status?: TaskState;
  pageSize: number;
  pageToken?: string;
  historyLength?: number;
  includeArtifacts: boolean;
  /** Only tasks whose status changed at or after this instant. */
  statusTimestampAfter?: string;
}

export interface ListTasksResult {
  tasks: Task[];
  nextPageToken: string;
  pageSize: number;
  totalSize: number;
}

/** Checks `ListTasksRequest` params. */
export function readListQuery(params: unknown): ListTasksQuery {
  const value = params === undefined ? {} : params;
  if (!isObject(value)) throw invalidParams("params must be an object");
  const query: ListTasksQuery = { pageSize: DEFAULT_PAGE_SIZE, includeArtifacts: value["includeArtifacts"] === true };
  const { contextId, status, pageSize, pageToken, historyLength, statusTimestampAfter } = value;
  if (contextId !== undefined && contextId !== "") {
    if (typeof contextId !== "string") throw invalidParams("params.contextId must be a string");
    query.contextId = contextId;
  }
  if (status !== undefined && status !== "" && status !== "TASK_STATE_UNSPECIFIED") {
    if (!TASK_STATES.includes(status as TaskState)) throw invalidParams(`params.status must be one of ${TASK_STATES.join(", ")}`);
    query.status = status as TaskState;
  }
  if (pageSize !== undefined) {
    if (!Number.isInteger(pageSize) || (pageSize as number) < 1 || (pageSize as number) > MAX_PAGE_SIZE) throw invalidParams(`params.pageSize must be an integer from 1 to ${MAX_PAGE_SIZE}`);
    query.pageSize = pageSize as number;
  }
  if (pageToken !== undefined && pageToken !== "") {
    if (typeof pageToken !== "string" || !decodeCursor(pageToken)) throw invalidParams("params.pageToken is not a token this server gave");
    query.pageToken = pageToken;
  }
  if (historyLength !== undefined) query.historyLength = readHistoryLength(historyLength);
  if (statusTimestampAfter !== undefined) {
    if (typeof statusTimestampAfter !== "string" || Number.isNaN(Date.parse(statusTimestampAfter))) throw invalidParams("params.statusTimestampAfter must be an ISO 8601 timestamp");
    query.statusTimestampAfter = new Date(statusTimestampAfter).toISOString();
  }
  return query;
}

export function readHistoryLength(value: unknown): number {
  if (!Number.isInteger(value) || (value as number) < 0) throw invalidParams("historyLength must be a non-negative integer");
  return value as number;
}

export async function listTasks(agent: A2AAgent, auth: AuthContext, query: ListTasksQuery, toWire: (task: TaskView) => Task): Promise<ListTasksResult> {
  const sessions = (await agent.sessions.list({ auth, wide: false })).filter(
    (session) => session.channel === A2A_CHANNEL && (query.contextId === undefined || session.sessionId === query.contextId),
  );
  // Filtered, sorted and paged on the index; only the page's contexts are folded whole.
  const all: IndexedTask[] = [];
  for (const session of sessions) {
    for (const task of await indexedTasks(agent, session.sessionId)) {
      if (query.status !== undefined && task.state !== query.status) continue;
      if (query.statusTimestampAfter !== undefined && task.timestamp < query.statusTimestampAfter) continue;
      all.push(task);
    }
  }
  all.sort(newestFirst);
  const cursor = query.pageToken === undefined ? undefined : decodeCursor(query.pageToken)!;
  const start = cursor === undefined ? 0 : all.findIndex((task) => newestFirst(task, { createdAt: cursor.at, id: cursor.id }) > 0);
  const page = start < 0 ? [] : all.slice(start, start + query.pageSize);
  const last = page.at(-1);
  const more = start >= 0 && start + query.pageSize < all.length;
  const folds = new Map<string, Promise<TaskFold>>();
  const tasks: Task[] = [];
  for (const entry of page) {
    if (!folds.has(entry.contextId)) folds.set(entry.contextId, readContext(agent, entry.contextId));
    const full = (await folds.get(entry.contextId)!).tasks.get(entry.id);
    if (full) tasks.push(toWire(full));
  }
  return {
    tasks,
    nextPageToken: more && last ? encodeCursor({ at: last.createdAt, id: last.id }) : "",
    pageSize: query.pageSize,
    totalSize: all.length,
  };
}

// --- internals ---

function newestFirst(a: Pick<TaskView, "createdAt" | "id">, b: Pick<TaskView, "createdAt" | "id">): number {
  if (a.createdAt !== b.createdAt) return a.createdAt < b.createdAt ? 1 : -1;
  return a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
}

function encodeCursor(cursor: { at: string; id: string }): string {
  return btoa(JSON.stringify([cursor.at, cursor.id])).replaceAll("+", "-").replaceAll("/", "_").replaceAll("=", "");
}

function decodeCursor(token: string): { at: string; id: string } | undefined {
  try {
    const value = JSON.parse(atob(token.replaceAll("-", "+").replaceAll("_", "/"))) as unknown;
    if (Array.isArray(value) && value.length === 2 && typeof value[0] === "string" && typeof value[1] === "string") return { at: value[0], id: value[1] };
  } catch {
    // Not base64 or not JSON: not one of ours.
  }
  return undefined;
}
