/**
 * The A2A operations in protocol terms, for any binding (docs/guide/a2a.md "JSON-RPC", "HTTP+JSON"): each
 * takes the request's params as sent and answers the result, or a stream of results, or throws
 * an {@link A2AError}.
 * @module
 */
import type { AuthContext } from "../../base/auth.ts";
import type { A2AAgent } from "./agent.ts";
import { A2AError, invalidParams, taskNotFound, unsupported } from "./errors.ts";
import { isObject, readIncoming } from "./incoming.ts";
import { createPushConfig, readConfig } from "./push-configs.ts";
import { checkResolvedTarget } from "./push-target.ts";
import { cancelTask } from "./task-cancel.ts";
import { toTask } from "./task-fold.ts";
import { type ListTasksResult, listTasks, readHistoryLength, readListQuery } from "./task-list.ts";
import { followTask, readTask } from "./task-read.ts";
import { sendMessage } from "./task-send.ts";
import { type StreamResponse, type Task, TERMINAL_STATES } from "./wire.ts";

/** One call: who asks, and when to give up waiting (the client left, the host closes). */
export interface OperationCall {
  agent: A2AAgent;
  auth: AuthContext;
  signal: AbortSignal;
}

/** A method of a binding: a plain result, or a stream of results. */
export type RpcMethod =
  | { kind: "unary"; run(call: OperationCall, params: unknown): Promise<unknown> }
  | { kind: "stream"; run(call: OperationCall, params: unknown): Promise<AsyncIterable<unknown>> };

/** `SendMessage`: blocking by default (until the task settles), or `returnImmediately`. */
export async function sendMessageOp(call: OperationCall, params: unknown): Promise<{ task: Task }> {
  const { message, returnImmediately, historyLength, push } = await readSendParams(params, call.agent);
  const sent = await sendMessage(call.agent, message, call.auth);
  if (push) await registerInline(call, push, sent.taskId);
  if (!returnImmediately) {
    for await (const _ of followTask(call.agent, sent.sessionId, sent.taskId, { snapshotAt: sent.snapshotAt, signal: call.signal })) {
      // Drained: the stream ends once the task settles.
    }
  }
  const task = await readTask(call.agent, sent.taskId, call.auth);
  return { task: toTask(task, historyLength === undefined ? {} : { historyLength }) };
}

/** `SendStreamingMessage`: the message is admitted before the stream opens, so errors come as errors. */
export async function sendStreamingOp(call: OperationCall, params: unknown): Promise<AsyncIterable<StreamResponse>> {
  const { message, historyLength, push } = await readSendParams(params, call.agent);
  const sent = await sendMessage(call.agent, message, call.auth);
  if (push) await registerInline(call, push, sent.taskId);
  return followTask(call.agent, sent.sessionId, sent.taskId, {
    snapshotAt: sent.snapshotAt,
    signal: call.signal,
    ...(historyLength === undefined ? {} : { historyLength }),
  });
}

export async function getTaskOp(call: OperationCall, params: unknown): Promise<Task> {
  const { id, historyLength } = readTaskParams(params);
  return toTask(await readTask(call.agent, id, call.auth), historyLength === undefined ? {} : { historyLength });
}

export async function cancelTaskOp(call: OperationCall, params: unknown): Promise<Task> {
  const { id } = readTaskParams(params);
  return toTask(await cancelTask(call.agent, id, call.auth, call.signal));
}

/** `SubscribeToTask`: the current Task, then its updates; a finished task has none to follow. */
export async function subscribeOp(call: OperationCall, params: unknown): Promise<AsyncIterable<StreamResponse>> {
  const { id } = readTaskParams(params);
  const task = await readTask(call.agent, id, call.auth);
  if (TERMINAL_STATES.has(task.state)) throw unsupported(`task ${id} is ${task.state}: there is nothing to subscribe to (GetTask reads it)`);
  const snapshotAt = await call.agent.log.length(task.contextId);
  return followTask(call.agent, task.contextId, id, { snapshotAt, signal: call.signal });
}

export async function listTasksOp(call: OperationCall, params: unknown): Promise<ListTasksResult> {
  const query = readListQuery(params);
  return listTasks(call.agent, call.auth, query, (task) =>
    toTask(task, { artifacts: query.includeArtifacts, ...(query.historyLength === undefined ? {} : { historyLength: query.historyLength }) }),
  );
}

/** `GetExtendedAgentCard`: the card with the skills only admitted callers see, when one is declared. */
export async function extendedCardOp(call: OperationCall): Promise<Record<string, unknown>> {
  const card = call.agent.extendedCard();
  if (!card) throw new A2AError("extendedCardNotConfigured", "this agent declares no extended agent card");
  return card;
}

// --- internals ---

/**
 * An inline config is stored once the message made its task, which may have run already: the
 * updates made before are caught up, so the receiver gets the task's first update too.
 */
async function registerInline(call: OperationCall, push: Record<string, unknown>, taskId: string): Promise<void> {
  const config = await createPushConfig(call.agent, call.auth, { ...push, taskId });
  await call.agent.catchUpPush?.(config);
}

interface SendParams {
  message: ReturnType<typeof readIncoming>;
  returnImmediately: boolean;
  historyLength?: number;
  /** `configuration.taskPushNotificationConfig`, checked before anything is sent. */
  push?: Record<string, unknown>;
}

async function readSendParams(params: unknown, agent: A2AAgent): Promise<SendParams> {
  if (!isObject(params)) throw invalidParams("params must be an object with a message");
  const configuration = params["configuration"] ?? {};
  if (!isObject(configuration)) throw invalidParams("params.configuration must be an object");
  const { returnImmediately, historyLength, taskPushNotificationConfig: push } = configuration;
  if (returnImmediately !== undefined && typeof returnImmediately !== "boolean") throw invalidParams("params.configuration.returnImmediately must be a boolean");
  if (push !== undefined && !isObject(push)) throw invalidParams("params.configuration.taskPushNotificationConfig must be an object");
  // The target is checked (its name resolved) before anything is sent.
  if (push) await checkResolvedTarget(readConfig(push, "", agent.allowPrivatePush).url, agent.allowPrivatePush, agent.resolveHost);
  return {
    message: readIncoming(params["message"]),
    returnImmediately: returnImmediately === true,
    ...(historyLength === undefined ? {} : { historyLength: readHistoryLength(historyLength) }),
    ...(push ? { push } : {}),
  };
}

function readTaskParams(params: unknown): { id: string; historyLength?: number } {
  if (!isObject(params)) throw invalidParams("params must be an object with the task id");
  const id = params["id"];
  if (typeof id !== "string" || id === "") throw invalidParams("params.id is required (the task id)");
  if (id.length > 200) throw taskNotFound(id.slice(0, 200));
  const { historyLength } = params;
  return { id, ...(historyLength === undefined ? {} : { historyLength: readHistoryLength(historyLength) }) };
}
