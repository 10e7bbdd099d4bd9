/**
 * The A2A HTTP+JSON binding's routes below `/v1/a2a` (docs/guide/a2a.md "HTTP+JSON"): the
 * operations of the JSON-RPC binding at one URL each. The protocol's `:verb` suffixes
 * (`message:send`, `tasks/<id>:cancel`) sit inside one path segment, so they are read from the
 * segment's parameter.
 * @module
 */
import { isObject as isRecord } from "../../features/a2a/incoming.ts";
import { checkVersion } from "../../features/a2a/jsonrpc.ts";
import { createPushConfig, deletePushConfig, getPushConfig, listPushConfigs } from "../../features/a2a/push-configs.ts";
import { cancelTaskOp, extendedCardOp, getTaskOp, listTasksOp, sendMessageOp, sendStreamingOp, subscribeOp } from "../../features/a2a/operations.ts";
import { type RestCall, intParam, restError, restStream, restUnary } from "../../features/a2a/rest.ts";
import { type RouteContext, defineRoute } from "../route.ts";
import { a2aCall, requireJson } from "./a2a.ts";
import { readRestBody, taskParam, unknownOperation } from "./a2a-rest-input.ts";

export const a2aRestMessage = defineRoute({
  method: "POST",
  path: "/v1/a2a/:operation",
  auth: "agent",
  summary: "A2A HTTP+JSON: POST message:send (a SendMessageRequest → {task}) and message:stream (Server-Sent Events)",
  async handler(context) {
    const operation = context.params["operation"];
    if (operation !== "message:send" && operation !== "message:stream") return restError(unknownOperation(context, "A2A"), context.host.logger);
    requireJson(context.request);
    const body = await readRestBody(context, restError);
    if (body instanceof Response) return body;
    const call = await restCall(context);
    if (call instanceof Response) return call;
    return operation === "message:send" ? restUnary(call, () => sendMessageOp(call, body)) : restStream(call, () => sendStreamingOp(call, body));
  },
});

export const a2aRestListTasks = defineRoute({
  method: "GET",
  path: "/v1/a2a/tasks",
  auth: "agent",
  summary: "A2A HTTP+JSON: ListTasks (?contextId, status, pageSize, pageToken, historyLength, statusTimestampAfter, includeArtifacts)",
  async handler(context) {
    const call = await restCall(context);
    if (call instanceof Response) return call;
    return restUnary(call, () => {
      const query = context.url.searchParams;
      const params: Record<string, unknown> = {};
      for (const key of ["contextId", "status", "pageToken", "statusTimestampAfter"]) if (query.has(key)) params[key] = query.get(key);
      for (const key of ["pageSize", "historyLength"]) if (query.has(key)) params[key] = intParam(context.url, key);
      if (query.has("includeArtifacts")) params["includeArtifacts"] = query.get("includeArtifacts") === "true";
      return listTasksOp(call, params);
    });
  },
});

export const a2aRestGetTask = defineRoute({
  method: "GET",
  path: "/v1/a2a/tasks/:task",
  auth: "agent",
  summary: "A2A HTTP+JSON: GetTask (tasks/<id>?historyLength=N), SubscribeToTask (tasks/<id>:subscribe, Server-Sent Events)",
  async handler(context) {
    const { id, verb } = taskParam(context);
    if (verb !== undefined && verb !== "subscribe") return restError(unknownOperation(context, "A2A"), context.host.logger);
    const call = await restCall(context);
    if (call instanceof Response) return call;
    if (verb === "subscribe") return restStream(call, () => subscribeOp(call, { id }));
    return restUnary(call, async () => {
      const historyLength = intParam(context.url, "historyLength");
      return getTaskOp(call, { id, ...(historyLength === undefined ? {} : { historyLength }) });
    });
  },
});

export const a2aRestTaskAction = defineRoute({
  method: "POST",
  path: "/v1/a2a/tasks/:task",
  auth: "agent",
  summary: "A2A HTTP+JSON: CancelTask (tasks/<id>:cancel), SubscribeToTask (tasks/<id>:subscribe, Server-Sent Events)",
  async handler(context) {
    const { id, verb } = taskParam(context);
    if (verb !== "cancel" && verb !== "subscribe") return restError(unknownOperation(context, "A2A"), context.host.logger);
    const call = await restCall(context);
    if (call instanceof Response) return call;
    return verb === "cancel" ? restUnary(call, () => cancelTaskOp(call, { id })) : restStream(call, () => subscribeOp(call, { id }));
  },
});

export const a2aRestPushConfigs = defineRoute({
  method: "POST",
  path: "/v1/a2a/tasks/:task/pushNotificationConfigs",
  auth: "agent",
  summary: "A2A HTTP+JSON: CreateTaskPushNotificationConfig ({url, token?, authentication?, id?} → the config)",
  async handler(context) {
    requireJson(context.request);
    const body = await readRestBody(context, restError);
    if (body instanceof Response) return body;
    const call = await restCall(context);
    if (call instanceof Response) return call;
    const taskId = context.params["task"] ?? "";
    return restUnary(call, () => createPushConfig(call.agent, call.auth, { ...(isRecord(body) ? body : {}), taskId }));
  },
});

export const a2aRestListPushConfigs = defineRoute({
  method: "GET",
  path: "/v1/a2a/tasks/:task/pushNotificationConfigs",
  auth: "agent",
  summary: "A2A HTTP+JSON: ListTaskPushNotificationConfigs → {configs, nextPageToken}",
  async handler(context) {
    const call = await restCall(context);
    if (call instanceof Response) return call;
    return restUnary(call, () => listPushConfigs(call.agent, call.auth, { taskId: context.params["task"] ?? "" }));
  },
});

export const a2aRestGetPushConfig = defineRoute({
  method: "GET",
  path: "/v1/a2a/tasks/:task/pushNotificationConfigs/:config",
  auth: "agent",
  summary: "A2A HTTP+JSON: GetTaskPushNotificationConfig",
  async handler(context) {
    const call = await restCall(context);
    if (call instanceof Response) return call;
    return restUnary(call, () => getPushConfig(call.agent, call.auth, { taskId: context.params["task"] ?? "", id: context.params["config"] ?? "" }));
  },
});

export const a2aRestDeletePushConfig = defineRoute({
  method: "DELETE",
  path: "/v1/a2a/tasks/:task/pushNotificationConfigs/:config",
  auth: "agent",
  summary: "A2A HTTP+JSON: DeleteTaskPushNotificationConfig",
  async handler(context) {
    const call = await restCall(context);
    if (call instanceof Response) return call;
    return restUnary(call, () => deletePushConfig(call.agent, call.auth, { taskId: context.params["task"] ?? "", id: context.params["config"] ?? "" }));
  },
});

export const a2aRestExtendedCard = defineRoute({
  method: "GET",
  path: "/v1/a2a/extendedAgentCard",
  auth: "agent",
  summary: "A2A HTTP+JSON: GetExtendedAgentCard (the card with a2a.extendedSkills, for admitted callers)",
  async handler(context) {
    const call = await restCall(context);
    if (call instanceof Response) return call;
    return restUnary(call, () => extendedCardOp(call));
  },
});

// --- internals ---

/** The call, or the refusal of an `A2A-Version` this server does not speak. */
async function restCall(context: RouteContext): Promise<RestCall | Response> {
  try {
    checkVersion(context.request);
  } catch (error) {
    return restError(error, context.host.logger);
  }
  return a2aCall(context);
}
