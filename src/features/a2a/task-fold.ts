/**
 * A session's event log read as A2A tasks (docs/guide/a2a.md "The mapping"): the context is the
 * session, each turn is a task, and its state follows the turn's events. Everything here is
 * derived from the log, so tasks, their history and their updates are the same after a restart,
 * on any store, for every reader.
 * @module
 */
import { isSessionId } from "../../base/ids.ts";
import type { SessionEvent } from "../../base/events/vocabulary.ts";
import type { PendingApproval } from "../../base/events/reply-fold.ts";
import { type Artifact, type Message, type StreamResponse, type Task, type TaskState, TERMINAL_STATES } from "./wire.ts";

/** The message a turn ends with when it was stopped or preempted (docs/design/faults.md). */
const INTERRUPTED = "turn interrupted";

/** One task as the fold keeps it. */
export interface TaskView {
  id: string;
  contextId: string;
  turnId: string;
  /** Log index of the `message.received` that opened it. */
  openedAt: number;
  createdAt: string;
  state: TaskState;
  timestamp: string;
  statusMessage?: Message;
  history: Message[];
  artifacts: Artifact[];
  /** Calls parked for approval and not yet decided. */
  pending: Map<string, PendingApproval>;
}

export interface TaskFold {
  tasks: Map<string, TaskView>;
}

export const emptyFold = (): TaskFold => ({ tasks: new Map() });

/** The task id of a turn: the session and the turn, so the id alone finds the log to read. */
export const taskIdOf = (sessionId: string, turnId: string): string => `${sessionId}.${turnId}`;

/** The session and turn of a task id, or undefined for anything not shaped like one. */
export function parseTaskId(id: string): { sessionId: string; turnId: string } | undefined {
  const dot = id.indexOf(".");
  const sessionId = id.slice(0, dot);
  const turnId = id.slice(dot + 1);
  return dot > 0 && isSessionId(sessionId) && /^turn_[0-9A-Za-z]{1,64}$/.test(turnId) ? { sessionId, turnId } : undefined;
}

/**
 * Applies one event; returns the updates it makes to the task it touches (for streams), each
 * with that task's id.
 */
export function foldTaskEvent(fold: TaskFold, event: Readonly<SessionEvent>): Array<{ taskId: string; update: StreamResponse }> {
  if (event.type === "session.failed") return failOpen(fold, event.at, event.data.message);
  if (event.turnId === undefined) return [];
  const id = taskIdOf(event.sessionId, event.turnId);
  if (event.type === "message.received") {
    fold.tasks.set(id, {
      id,
      contextId: event.sessionId,
      turnId: event.turnId,
      openedAt: event.index,
      createdAt: event.at,
      state: "TASK_STATE_SUBMITTED",
      timestamp: event.at,
      history: [message(id, event.sessionId, "ROLE_USER", `${event.turnId}-${event.index}`, event.data.text)],
      artifacts: [],
      pending: new Map(),
    });
    return [];
  }
  const task = fold.tasks.get(id);
  if (!task || TERMINAL_STATES.has(task.state)) return [];
  switch (event.type) {
    case "turn.started":
      return status(task, "TASK_STATE_WORKING", event.at);
    case "message.completed": {
      if (event.data.finishReason === "tool_call" || event.data.text === "") return [];
      const reply = message(id, task.contextId, "ROLE_AGENT", `${task.turnId}-${event.index}`, event.data.text);
      task.history.push(reply);
      task.statusMessage = reply;
      return [];
    }
    case "action.approval_requested": {
      const { callId, toolName, input } = event.data;
      task.pending.set(callId, { callId, toolName, input });
      return status(task, "TASK_STATE_INPUT_REQUIRED", event.at, approvalPrompt(task, event.index));
    }
    case "action.approval_resolved":
      task.pending.delete(event.data.callId);
      return task.pending.size === 0 ? status(task, "TASK_STATE_WORKING", event.at) : [];
    case "artifact.tagged": {
      const { artifact } = event.data;
      const entry: Artifact = {
        artifactId: artifact.id,
        name: artifact.title,
        parts: [{ data: artifact.data }],
        metadata: { kind: artifact.kind, key: artifact.key },
      };
      task.artifacts.push(entry);
      return [{ taskId: id, update: { artifactUpdate: { taskId: id, contextId: task.contextId, artifact: entry, lastChunk: true } } }];
    }
    case "turn.completed":
      return status(task, "TASK_STATE_COMPLETED", event.at, task.statusMessage);
    case "turn.failed":
      if (event.data.message === INTERRUPTED) return status(task, "TASK_STATE_CANCELED", event.at);
      return status(task, "TASK_STATE_FAILED", event.at, message(id, task.contextId, "ROLE_AGENT", `${task.turnId}-${event.index}`, event.data.message));
    default:
      return [];
  }
}

/** The Task as the wire carries it, with at most `historyLength` latest messages. */
export function toTask(view: TaskView, options: { historyLength?: number; artifacts?: boolean } = {}): Task {
  const history = options.historyLength === undefined ? view.history : options.historyLength === 0 ? [] : view.history.slice(-options.historyLength);
  return {
    id: view.id,
    contextId: view.contextId,
    status: { state: view.state, timestamp: view.timestamp, ...(view.statusMessage && view.state !== "TASK_STATE_WORKING" ? { message: view.statusMessage } : {}) },
    ...(options.artifacts === false || view.artifacts.length === 0 ? {} : { artifacts: view.artifacts }),
    ...(history.length === 0 ? {} : { history }),
  };
}

// --- internals ---

function status(task: TaskView, state: TaskState, at: string, statusMessage?: Message): Array<{ taskId: string; update: StreamResponse }> {
  task.state = state;
  task.timestamp = at;
  if (statusMessage) task.statusMessage = statusMessage;
  else if (state === "TASK_STATE_CANCELED" || state === "TASK_STATE_WORKING") delete task.statusMessage;
  const wire = toTask(task).status;
  return [{ taskId: task.id, update: { statusUpdate: { taskId: task.id, contextId: task.contextId, status: wire } } }];
}

/** What an input-required task asks: the parked calls, and how to answer (docs/guide/a2a.md "Approvals"). */
function approvalPrompt(task: TaskView, index: number): Message {
  const calls = [...task.pending.values()];
  return {
    ...message(task.id, task.contextId, "ROLE_AGENT", `${task.turnId}-${index}`, `approval required: ${calls.map((call) => call.toolName).join(", ")}; answer "approve" or "deny"`),
    parts: [
      { text: `approval required: ${calls.map((call) => call.toolName).join(", ")}; answer "approve" or "deny"` },
      { data: { approvals: calls }, mediaType: "application/json" },
    ],
  };
}

function failOpen(fold: TaskFold, at: string, why: string): Array<{ taskId: string; update: StreamResponse }> {
  const out: Array<{ taskId: string; update: StreamResponse }> = [];
  for (const task of fold.tasks.values()) {
    if (TERMINAL_STATES.has(task.state)) continue;
    out.push(...status(task, "TASK_STATE_FAILED", at, message(task.id, task.contextId, "ROLE_AGENT", `${task.turnId}-failed`, why)));
  }
  return out;
}

function message(taskId: string, contextId: string, role: Message["role"], messageId: string, text: string): Message {
  return { messageId, contextId, taskId, role, parts: [{ text }] };
}
