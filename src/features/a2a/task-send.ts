/**
 * `SendMessage`'s effect on sessions (docs/guide/a2a.md "The mapping"): a message without a
 * context opens a session; one with a context continues it (the continuation token is the
 * host's business, not the caller's); one naming a task that waits for approval decides it.
 * @module
 */
import type { AuthContext } from "../../base/auth.ts";
import { isSessionId } from "../../base/ids.ts";
import { type A2AAgent, A2A_CHANNEL, ownedContext } from "./agent.ts";
import { A2AError, invalidParams, unsupported } from "./errors.ts";
import { type IncomingMessage, attachmentKey, attachmentPath, readDecision, textOf } from "./incoming.ts";
import { readTask } from "./task-read.ts";
import { taskIdOf } from "./task-fold.ts";
import { TERMINAL_STATES } from "./wire.ts";

/** Where the sent message's task is: its session, its id, and the log index to snapshot it at. */
export interface SentTask {
  sessionId: string;
  taskId: string;
  snapshotAt: number;
}

export async function sendMessage(agent: A2AAgent, message: IncomingMessage, auth: AuthContext): Promise<SentTask> {
  if (message.taskId !== undefined) return answerTask(agent, message, auth);
  if (message.files.length > 0 && !agent.attachments) {
    throw new A2AError("contentTypeNotSupported", 'file parts need the artifact kind "attachment": this agent declares artifact kinds without it');
  }
  const workspaceFiles = textFiles(message);
  if (message.contextId === undefined) {
    const record = await agent.sessions.create({ message: message.text, auth, channel: A2A_CHANNEL, ...(workspaceFiles ? { workspaceFiles } : {}) });
    await keepFiles(agent, record.sessionId, message);
    return located(agent, record.sessionId, 0, message.text);
  }
  const sessionId = message.contextId;
  if (!isSessionId(sessionId)) throw contextNotFound(sessionId);
  const record = await ownedContext(agent, sessionId, auth, sessionId).catch((error: unknown) => {
    throw A2AError.isError(error) && error.kind === "taskNotFound" ? contextNotFound(sessionId) : error;
  });
  const from = await agent.log.length(sessionId);
  // The token never rotates on this channel, so the stored one is always current.
  // A follow-up's files are kept before its turn starts.
  await keepFiles(agent, sessionId, message);
  await agent.sessions.followUp(sessionId, { message: message.text, auth, continuationToken: record.continuationToken, rotate: false, ...(workspaceFiles ? { workspaceFiles } : {}) });
  return located(agent, sessionId, from, message.text);
}

// --- internals ---

/** Text files, written into the session's workspace before the turn (docs/design/a2a-files.md). */
function textFiles(message: IncomingMessage): Record<string, string> | undefined {
  const files: Record<string, string> = {};
  for (const file of message.files) {
    const text = textOf(file);
    if (text !== undefined) files[attachmentPath(file)] = text;
  }
  return Object.keys(files).length > 0 ? files : undefined;
}

/** Each file as an artifact of the session, kind `attachment`: the bytes, or the URL as data. */
async function keepFiles(agent: A2AAgent, sessionId: string, message: IncomingMessage): Promise<void> {
  for (const file of message.files) {
    await agent.attachments!.tag({
      kind: "attachment",
      key: attachmentKey(message.messageId, file),
      title: file.name,
      sessionId,
      data: { mediaType: file.mediaType, ...(file.url === undefined ? { size: file.bytes!.length } : { url: file.url }) },
      ...(file.bytes ? { contents: file.bytes, contentType: file.mediaType } : {}),
    });
  }
}

/** A message naming a task: only an input-required task takes one, as its approval decision. */
async function answerTask(agent: A2AAgent, message: IncomingMessage, auth: AuthContext): Promise<SentTask> {
  const task = await readTask(agent, message.taskId!, auth);
  if (message.contextId !== undefined && message.contextId !== task.contextId) throw invalidParams("params.message.contextId is not the task's context");
  if (TERMINAL_STATES.has(task.state)) throw unsupported(`task ${task.id} is ${task.state}; send a message with its contextId (and no taskId) to continue the conversation`);
  if (task.state !== "TASK_STATE_INPUT_REQUIRED") throw unsupported(`task ${task.id} is ${task.state} and takes no message until it asks for input`);
  const { decision, callId } = readDecision(message);
  const calls = callId === undefined ? [...task.pending.keys()] : [callId];
  if (callId !== undefined && !task.pending.has(callId)) throw invalidParams(`call ${JSON.stringify(callId)} is not waiting for approval in task ${task.id}`);
  const snapshotAt = await agent.log.length(task.contextId);
  for (const call of calls) await agent.approvals.resolve(task.contextId, call, decision);
  return { sessionId: task.contextId, taskId: task.id, snapshotAt };
}

/** Finds the turn the message just admitted: the first `message.received` of that text from `from`. */
async function located(agent: A2AAgent, sessionId: string, from: number, text: string): Promise<SentTask> {
  for (const event of await agent.log.readEvents(sessionId, from)) {
    if (event.type === "message.received" && event.turnId !== undefined && event.data.text === text) {
      return { sessionId, taskId: taskIdOf(sessionId, event.turnId), snapshotAt: event.index + 1 };
    }
  }
  // Admission commits the message before the session service returns (docs/design/storage.md).
  throw new Error(`[agent-serve] [a2a] the admitted message of ${sessionId} is not in its log`);
}

const contextNotFound = (id: string): A2AError => new A2AError("taskNotFound", `context not found: ${JSON.stringify(id)}`);
