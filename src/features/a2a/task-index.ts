/**
 * A session's task index (docs/design/a2a-tasks.md): what `ListTasks` filters, sorts and pages on,
 * without folding whole logs. Each task's state as the fold leaves it, less its messages and
 * artifacts, and the log index the fold reached, kept in storage; a read folds only the events
 * appended since, with the same fold as every other reader (./task-fold.ts), and stores the index
 * again when it moved. Derived from the log alone, so a lost or stale index costs a longer fold,
 * never a wrong answer.
 * @module
 */
import type { PendingApproval } from "../../base/events/reply-fold.ts";
import { a2aTaskIndexKey } from "../../base/storage/keys.ts";
import type { A2AAgent } from "./agent.ts";
import { type TaskFold, type TaskView, foldTaskEvent } from "./task-fold.ts";

/** A task of the index: the fold's view without history, artifacts or status message. */
export type IndexedTask = Omit<TaskView, "history" | "artifacts" | "statusMessage" | "pending"> & { pending: PendingApproval[] };

interface StoredIndex {
  /** The next log index to fold. */
  next: number;
  tasks: IndexedTask[];
}

/** The session's tasks, brought up to the end of its log. */
export async function indexedTasks(agent: Pick<A2AAgent, "log" | "storage">, sessionId: string): Promise<IndexedTask[]> {
  const key = a2aTaskIndexKey(sessionId);
  const raw = await agent.storage.get(key);
  const stored = raw === undefined ? { next: 0, tasks: [] } : (JSON.parse(raw) as StoredIndex);
  const fold: TaskFold = { tasks: new Map(stored.tasks.map((task) => [task.id, { ...task, history: [], artifacts: [], pending: new Map(task.pending.map((call) => [call.callId, call])) }])) };
  let next = stored.next;
  for (const event of await agent.log.readEvents(sessionId, stored.next)) {
    foldTaskEvent(fold, event);
    next = event.index + 1;
  }
  const tasks = [...fold.tasks.values()].map(({ history: _history, artifacts: _artifacts, statusMessage: _message, pending, ...rest }) => ({ ...rest, pending: [...pending.values()] }));
  if (next !== stored.next) await agent.storage.set(key, JSON.stringify({ next, tasks } satisfies StoredIndex));
  return tasks;
}
