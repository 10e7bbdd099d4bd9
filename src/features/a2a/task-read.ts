/**
 * Reading tasks from the log: one task, every task of a context, and following one task live
 * (docs/guide/a2a.md "Streaming"): the current Task first, then its updates, ending when it
 * settles. A subscriber that reconnects reads the log again, so it misses nothing.
 * @module
 */
import type { AuthContext } from "../../base/auth.ts";
import { followLog } from "../../base/events/follow.ts";
import type { SessionEvent } from "../../base/events/vocabulary.ts";
import { type A2AAgent, ownedContext } from "./agent.ts";
import { taskNotFound } from "./errors.ts";
import { type TaskFold, type TaskView, emptyFold, foldTaskEvent, parseTaskId, toTask } from "./task-fold.ts";
import { type StreamResponse, TERMINAL_STATES, isSettled } from "./wire.ts";

/** Every task of a session, folded from its whole log. */
export async function readContext(agent: A2AAgent, sessionId: string): Promise<TaskFold> {
  const fold = emptyFold();
  for (const event of await agent.log.readEvents(sessionId)) foldTaskEvent(fold, event);
  return fold;
}

/** The task `id` if `auth` owns it. */
export async function readTask(agent: A2AAgent, id: string, auth: AuthContext): Promise<TaskView> {
  const parsed = parseTaskId(id);
  if (!parsed) throw taskNotFound(id);
  await ownedContext(agent, parsed.sessionId, auth, id);
  const task = (await readContext(agent, parsed.sessionId)).tasks.get(id);
  if (!task) throw taskNotFound(id);
  return task;
}

export interface FollowTaskOptions {
  /** The Task is sent once the log is read up to here (exclusive); later events are updates. */
  snapshotAt: number;
  historyLength?: number;
  signal: AbortSignal;
}

/**
 * The task's stream: the Task as of `snapshotAt`, then its status and artifact updates, ending
 * after a terminal state, or an input-required one reached after the snapshot.
 */
export async function* followTask(agent: A2AAgent, sessionId: string, taskId: string, options: FollowTaskOptions): AsyncGenerator<StreamResponse> {
  const fold = emptyFold();
  let sent = false;
  for await (const { first, lines } of followLog(agent.log, sessionId, { from: 0, live: true, signal: options.signal })) {
    for (let offset = 0; offset < lines.length; offset++) {
      const updates = foldTaskEvent(fold, JSON.parse(lines[offset]!) as SessionEvent);
      if (!sent) {
        if (first + offset + 1 < options.snapshotAt) continue;
        const task = fold.tasks.get(taskId);
        if (!task) throw taskNotFound(taskId);
        sent = true;
        yield { task: toTask(task, options.historyLength === undefined ? {} : { historyLength: options.historyLength }) };
        if (TERMINAL_STATES.has(task.state)) return;
        continue;
      }
      for (const { taskId: touched, update } of updates) {
        if (touched !== taskId) continue;
        yield update;
        if ("statusUpdate" in update && isSettled(update.statusUpdate.status.state)) return;
      }
    }
  }
}
