/**
 * The 0.3 method names (`message/send`, `message/stream`, `tasks/get`, `tasks/cancel`,
 * `tasks/resubscribe`) as aliases of the 1.0 operations, with the 0.3 shapes translated on the
 * way in and out (lower-case states and roles, `kind` discriminators, `blocking`), so 0.3
 * clients keep working (docs/guide/a2a.md "0.3 clients").
 * @module
 */
import { A2AError, invalidParams } from "./errors.ts";
import { isObject } from "./incoming.ts";
import { type PushConfig, createPushConfig, deletePushConfig, getPushConfig, listPushConfigs } from "./push-configs.ts";
import { type OperationCall, type RpcMethod, cancelTaskOp, extendedCardOp, getTaskOp, sendMessageOp, sendStreamingOp, subscribeOp } from "./operations.ts";
import type { Artifact, Message, Part, StreamResponse, Task, TaskStatus } from "./wire.ts";
import { TERMINAL_STATES } from "./wire.ts";

export const LEGACY_METHODS: Record<string, RpcMethod> = {
  "message/send": { kind: "unary", run: async (call, params) => toLegacyTask((await sendMessageOp(call, fromLegacySend(params))).task) },
  "message/stream": { kind: "stream", run: async (call, params) => legacyStream(await sendStreamingOp(call, fromLegacySend(params))) },
  "tasks/get": { kind: "unary", run: async (call, params) => toLegacyTask(await getTaskOp(call, params)) },
  "tasks/cancel": { kind: "unary", run: async (call, params) => toLegacyTask(await cancelTaskOp(call, params)) },
  "tasks/resubscribe": { kind: "stream", run: async (call: OperationCall, params) => legacyStream(await subscribeOp(call, params)) },
  "agent/getAuthenticatedExtendedCard": { kind: "unary", run: extendedCardOp },
  "tasks/pushNotificationConfig/set": {
    kind: "unary",
    run: async (call, params) => toLegacyPush(await createPushConfig(call.agent, call.auth, fromLegacyPush(params))),
  },
  "tasks/pushNotificationConfig/get": {
    kind: "unary",
    run: async (call, params) => {
      const { taskId, configId } = legacyConfigParams(params);
      if (configId !== undefined) return toLegacyPush(await getPushConfig(call.agent, call.auth, { taskId, id: configId }));
      // 0.3 allowed a get without a config id: the task's first config.
      const first = (await listPushConfigs(call.agent, call.auth, { taskId })).configs[0];
      if (!first) throw new A2AError("taskNotFound", `task ${taskId} has no push notification config`);
      return toLegacyPush(first);
    },
  },
  "tasks/pushNotificationConfig/list": {
    kind: "unary",
    run: async (call, params) => (await listPushConfigs(call.agent, call.auth, { taskId: legacyConfigParams(params).taskId })).configs.map(toLegacyPush),
  },
  "tasks/pushNotificationConfig/delete": {
    kind: "unary",
    run: async (call, params) => {
      const { taskId, configId } = legacyConfigParams(params);
      await deletePushConfig(call.agent, call.auth, { taskId, id: configId });
      return null;
    },
  },
};

// --- internals ---

/** `TaskPushNotificationConfig` (0.3: the config nested, `authentication.schemes` a list) as 1.0's. */
function fromLegacyPush(params: unknown): unknown {
  if (!isObject(params) || !isObject(params["pushNotificationConfig"])) return params;
  const { id, url, token, authentication } = params["pushNotificationConfig"];
  const schemes = isObject(authentication) && Array.isArray(authentication["schemes"]) ? authentication["schemes"] : undefined;
  return {
    taskId: params["taskId"],
    id,
    url,
    token,
    ...(isObject(authentication) ? { authentication: { scheme: schemes?.[0], credentials: authentication["credentials"] } } : {}),
  };
}

function toLegacyPush(config: PushConfig): Record<string, unknown> {
  const { taskId, authentication, ...rest } = config;
  return {
    taskId,
    pushNotificationConfig: {
      ...rest,
      ...(authentication ? { authentication: { schemes: [authentication.scheme], ...(authentication.credentials ? { credentials: authentication.credentials } : {}) } } : {}),
    },
  };
}

function legacyConfigParams(params: unknown): { taskId: string; configId?: string } {
  if (!isObject(params) || typeof params["id"] !== "string") throw invalidParams("params.id is required (the task id)");
  const configId = params["pushNotificationConfigId"];
  if (configId !== undefined && typeof configId !== "string") throw invalidParams("params.pushNotificationConfigId must be a string");
  return { taskId: params["id"], ...(configId ? { configId } : {}) };
}

/** `MessageSendParams` (0.3) as a 1.0 `SendMessageRequest`; anything unexpected is left for the 1.0 checks to refuse. */
function fromLegacySend(params: unknown): unknown {
  if (!isObject(params)) return params;
  const message = params["message"];
  const configuration = isObject(params["configuration"]) ? params["configuration"] : {};
  const { blocking, historyLength } = configuration;
  return {
    message: isObject(message) ? fromLegacyMessage(message) : message,
    configuration: {
      ...(blocking === false ? { returnImmediately: true } : {}),
      ...(historyLength === undefined ? {} : { historyLength }),
    },
  };
}

function fromLegacyMessage(message: Record<string, unknown>): Record<string, unknown> {
  const parts = Array.isArray(message["parts"])
    ? message["parts"].map((part: unknown) => {
        if (!isObject(part)) return part;
        if (part["kind"] === "text") return { text: part["text"] };
        if (part["kind"] === "data") return { data: part["data"] };
        if (part["kind"] === "file") return fromLegacyFile(part["file"]);
        return part;
      })
    : message["parts"];
  return { ...message, role: message["role"] === "user" ? "ROLE_USER" : message["role"], parts };
}

/** 0.3's `{kind: "file", file: {bytes | uri, name?, mimeType?}}` as 1.0's `{raw | url, filename?, mediaType?}`. */
function fromLegacyFile(file: unknown): Record<string, unknown> {
  if (!isObject(file)) return { raw: null };
  const { bytes, uri, name, mimeType } = file;
  return { ...(bytes === undefined ? { url: uri } : { raw: bytes }), ...(name === undefined ? {} : { filename: name }), ...(mimeType === undefined ? {} : { mediaType: mimeType }) };
}

async function* legacyStream(results: AsyncIterable<StreamResponse>): AsyncGenerator<unknown> {
  for await (const result of results) {
    if ("task" in result) yield toLegacyTask(result.task);
    else if ("statusUpdate" in result) {
      const { taskId, contextId, status } = result.statusUpdate;
      const final = TERMINAL_STATES.has(status.state) || status.state === "TASK_STATE_INPUT_REQUIRED";
      yield { kind: "status-update", taskId, contextId, status: toLegacyStatus(status), final };
    } else {
      const { taskId, contextId, artifact, lastChunk } = result.artifactUpdate;
      yield { kind: "artifact-update", taskId, contextId, artifact: toLegacyArtifact(artifact), ...(lastChunk ? { lastChunk } : {}) };
    }
  }
}

function toLegacyTask(task: Task): Record<string, unknown> {
  return {
    kind: "task",
    id: task.id,
    contextId: task.contextId,
    status: toLegacyStatus(task.status),
    ...(task.history ? { history: task.history.map(toLegacyMessage) } : {}),
    ...(task.artifacts ? { artifacts: task.artifacts.map(toLegacyArtifact) } : {}),
  };
}

function toLegacyStatus(status: TaskStatus): Record<string, unknown> {
  return {
    state: status.state.slice("TASK_STATE_".length).toLowerCase().replace("_", "-"),
    timestamp: status.timestamp,
    ...(status.message ? { message: toLegacyMessage(status.message) } : {}),
  };
}

function toLegacyMessage(message: Message): Record<string, unknown> {
  return { kind: "message", ...message, role: message.role === "ROLE_USER" ? "user" : "agent", parts: message.parts.map(toLegacyPart) };
}

function toLegacyArtifact(artifact: Artifact): Record<string, unknown> {
  return { ...artifact, parts: artifact.parts.map(toLegacyPart) };
}

function toLegacyPart(part: Part): Record<string, unknown> {
  return part.text === undefined ? { kind: "data", data: part.data } : { kind: "text", text: part.text };
}
