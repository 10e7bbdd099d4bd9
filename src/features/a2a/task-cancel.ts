/**
 * `CancelTask` (docs/guide/a2a.md "Cancelling"): a task still open is its session's current
 * turn, so cancelling is stopping the session; the task is canceled once the log says so.
 * @module
 */
import type { AuthContext } from "../../base/auth.ts";
import type { A2AAgent } from "./agent.ts";
import { A2AError } from "./errors.ts";
import type { TaskView } from "./task-fold.ts";
import { followTask, readTask } from "./task-read.ts";
import { TERMINAL_STATES } from "./wire.ts";

export async function cancelTask(agent: A2AAgent, id: string, auth: AuthContext, signal: AbortSignal): Promise<TaskView> {
  const task = await readTask(agent, id, auth);
  if (TERMINAL_STATES.has(task.state)) throw notCancelable(task);
  const snapshotAt = await agent.log.length(task.contextId);
  await agent.sessions.stop(task.contextId, auth);
  // Wait for the task's own end: canceled, or whatever it reached before the stop landed.
  // Bounded: a stop that found nothing to stop (the turn ended meanwhile) leaves nothing to wait for.
  const bounded = AbortSignal.any([signal, AbortSignal.timeout(CANCEL_WAIT_MS)]);
  for await (const update of followTask(agent, task.contextId, id, { snapshotAt, signal: bounded })) {
    if ("statusUpdate" in update && TERMINAL_STATES.has(update.statusUpdate.status.state)) break;
    if ("task" in update && TERMINAL_STATES.has(update.task.status.state)) break;
  }
  return readTask(agent, id, auth);
}

const CANCEL_WAIT_MS = 10_000;

const notCancelable = (task: TaskView): A2AError => new A2AError("taskNotCancelable", `task ${task.id} is ${task.state} and cannot be canceled`);
