/**
 * The 0.3 HTTP+JSON binding (docs/guide/a2a.md "0.3 clients"): 0.3 clients post to
 * `<interface url>/v1/message:send` and the like, with the proto-JSON of 0.3's messages (`content`
 * parts `{text}`, `{data: {data}}`, `{file: {fileWithBytes | fileWithUri, mimeType, name}}`), a
 * `{task}` or `{msg}` answer, streams of bare `StreamResponse`s with `final` on status updates, and
 * errors as `{code, message}` with the JSON-RPC code. The 1.0 operations answer them; this module
 * only translates on the way in and out.
 * @module
 */
import type { HostLogger } from "../../base/logging.ts";
import { A2A_CODES } from "./errors.ts";
import { isObject } from "./incoming.ts";
import type { PushConfig } from "./push-configs.ts";
import { type RestCall, type RestDialect, classifyError, restError, restStream, restUnary } from "./rest.ts";
import { type Artifact, type Message, type Part, type StreamResponse, type Task, TERMINAL_STATES, type TaskStatus } from "./wire.ts";

/** A 0.3 `SendMessageRequest` (proto-JSON) as a 1.0 one; what does not fit is left for the 1.0 checks to refuse. */
export function fromLegacyRestSend(body: unknown): unknown {
  if (!isObject(body)) return body;
  const message = isObject(body["message"]) ? body["message"] : isObject(body["request"]) ? body["request"] : body["message"];
  const configuration = isObject(body["configuration"]) ? body["configuration"] : {};
  const push = isObject(configuration["pushNotification"]) ? fromLegacyPushConfig(configuration["pushNotification"]) : undefined;
  return {
    message: isObject(message) ? fromLegacyMessage(message) : message,
    configuration: {
      // Proto-JSON leaves out a false `blocking`: a configuration without it asked not to block.
      // A request with no configuration at all blocks, as 0.3's JSON-RPC `message/send` does here.
      ...(isObject(body["configuration"]) && configuration["blocking"] !== true ? { returnImmediately: true } : {}),
      ...(configuration["historyLength"] === undefined || configuration["historyLength"] === 0 ? {} : { historyLength: configuration["historyLength"] }),
      ...(push ? { taskPushNotificationConfig: push } : {}),
    },
  };
}

/** A 0.3 `PushNotificationConfig` (proto-JSON, `authentication.schemes` a list) as 1.0's. */
export function fromLegacyPushConfig(config: Record<string, unknown>): Record<string, unknown> {
  const { id, url, token, authentication } = config;
  const schemes = isObject(authentication) && Array.isArray(authentication["schemes"]) ? authentication["schemes"] : undefined;
  return {
    ...(id === undefined || id === "" ? {} : { id }),
    url,
    ...(token === undefined || token === "" ? {} : { token }),
    ...(isObject(authentication) && schemes?.[0] !== undefined ? { authentication: { scheme: schemes[0], ...(authentication["credentials"] ? { credentials: authentication["credentials"] } : {}) } } : {}),
  };
}

/** A config as 0.3's REST answers it: `{name: "tasks/<id>/pushNotificationConfigs/<configId>", pushNotificationConfig}`. */
export function toLegacyRestPush(config: PushConfig): Record<string, unknown> {
  const { taskId, id, authentication, ...rest } = config;
  return {
    name: `tasks/${taskId}/pushNotificationConfigs/${id}`,
    pushNotificationConfig: {
      id,
      ...rest,
      ...(authentication ? { authentication: { schemes: [authentication.scheme], ...(authentication.credentials ? { credentials: authentication.credentials } : {}) } } : {}),
    },
  };
}

export function toLegacyRestTask(task: Task): Record<string, unknown> {
  return {
    id: task.id,
    contextId: task.contextId,
    status: toLegacyStatus(task.status),
    ...(task.artifacts ? { artifacts: task.artifacts.map(toLegacyArtifact) } : {}),
    ...(task.history ? { history: task.history.map(toLegacyMessage) } : {}),
    ...(task.metadata ? { metadata: task.metadata } : {}),
  };
}

/** A 1.0 stream frame as 0.3's: the same oneof names; a status update says whether it is the last. */
export function toLegacyRestFrame(frame: StreamResponse): Record<string, unknown> {
  if ("task" in frame) return { task: toLegacyRestTask(frame.task) };
  if ("statusUpdate" in frame) {
    const { status, ...rest } = frame.statusUpdate;
    const final = TERMINAL_STATES.has(status.state) || status.state === "TASK_STATE_INPUT_REQUIRED";
    return { statusUpdate: { ...rest, status: toLegacyStatus(status), final } };
  }
  const { artifact, ...rest } = frame.artifactUpdate;
  return { artifactUpdate: { ...rest, artifact: toLegacyArtifact(artifact) } };
}

/** The 0.3 binding's rendering: `{code, message}` errors with the JSON-RPC code, frames translated. */
const LEGACY_DIALECT: RestDialect<StreamResponse> = {
  error(error, logger) {
    const { kind, message, status } = classifyError(error, logger);
    return { status, body: { code: A2A_CODES[kind], message } };
  },
  frame: toLegacyRestFrame,
};

/** A unary 0.3 answer: the translated result, or `{code, message}` under the binding's HTTP status. */
export function legacyRestUnary(call: RestCall, run: () => Promise<unknown>): Promise<Response> {
  return restUnary(call, run, LEGACY_DIALECT);
}

/** A 0.3 stream: Server-Sent Events of bare frames; a failure mid-stream is an `error` event. */
export function legacyRestStream(call: RestCall, open: () => Promise<AsyncIterable<StreamResponse>>): Promise<Response> {
  return restStream(call, open, LEGACY_DIALECT);
}

export function legacyRestError(error: unknown, logger: HostLogger): Response {
  return restError(error, logger, LEGACY_DIALECT);
}

// --- internals ---

function fromLegacyMessage(message: Record<string, unknown>): Record<string, unknown> {
  const { content, parts, ...rest } = message;
  const list = Array.isArray(content) ? content : parts;
  return { ...rest, parts: Array.isArray(list) ? list.map(fromLegacyPart) : list };
}

function fromLegacyPart(part: unknown): unknown {
  if (!isObject(part)) return part;
  if (typeof part["text"] === "string") return { text: part["text"] };
  if (isObject(part["data"]) && "data" in part["data"]) return { data: part["data"]["data"] };
  const file = part["file"];
  if (isObject(file)) {
    const meta = { ...(typeof file["name"] === "string" ? { filename: file["name"] } : {}), ...(typeof file["mimeType"] === "string" && file["mimeType"] !== "" ? { mediaType: file["mimeType"] } : {}) };
    return typeof file["fileWithBytes"] === "string" ? { raw: file["fileWithBytes"], ...meta } : { url: file["fileWithUri"], ...meta };
  }
  return part;
}

/** 0.3's proto spells the canceled state with two Ls. */
function toLegacyStatus(status: TaskStatus): Record<string, unknown> {
  return { state: status.state === "TASK_STATE_CANCELED" ? "TASK_STATE_CANCELLED" : status.state, timestamp: status.timestamp, ...(status.message ? { message: toLegacyMessage(status.message) } : {}) };
}

function toLegacyMessage(message: Message): Record<string, unknown> {
  const { parts, ...rest } = message;
  return { ...rest, content: parts.map(toLegacyPart) };
}

function toLegacyArtifact(artifact: Artifact): Record<string, unknown> {
  return { ...artifact, parts: artifact.parts.map(toLegacyPart) };
}

function toLegacyPart(part: Part): Record<string, unknown> {
  return part.text === undefined ? { data: { data: part.data } } : { text: part.text };
}
