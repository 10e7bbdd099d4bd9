/**
 * The 0.3 HTTP+JSON binding's routes, below `/v1/a2a/v1` (docs/guide/a2a.md "0.3 clients"): a 0.3
 * client appends `/v1/message:send` (and the rest) to the HTTP+JSON interface URL the card lists in
 * `additionalInterfaces`, which is the 1.0 binding's own `/v1/a2a`. The 1.0 operations answer,
 * translated by ../../features/a2a/legacy-rest.ts.
 * @module
 */
import { isObject } from "../../features/a2a/incoming.ts";
import {
  fromLegacyPushConfig,
  fromLegacyRestSend,
  legacyRestError,
  legacyRestStream,
  legacyRestUnary,
  toLegacyRestPush,
  toLegacyRestTask,
} from "../../features/a2a/legacy-rest.ts";
import { createPushConfig, deletePushConfig, getPushConfig, listPushConfigs } from "../../features/a2a/push-configs.ts";
import { cancelTaskOp, extendedCardOp, getTaskOp, sendMessageOp, sendStreamingOp, subscribeOp } from "../../features/a2a/operations.ts";
import { intParam } from "../../features/a2a/rest.ts";
import { defineRoute } from "../route.ts";
import { a2aCall, requireJson } from "./a2a.ts";
import { readRestBody, taskParam, unknownOperation } from "./a2a-rest-input.ts";

export const a2aLegacyRestMessage = defineRoute({
  method: "POST",
  path: "/v1/a2a/v1/:operation",
  auth: "agent",
  summary: "A2A 0.3 HTTP+JSON: POST message:send ({task}) and message:stream (Server-Sent Events)",
  async handler(context) {
    const operation = context.params["operation"];
    if (operation !== "message:send" && operation !== "message:stream") return legacyRestError(unknownOperation(context, "A2A 0.3"), context.host.logger);
    requireJson(context.request);
    const body = await readRestBody(context, legacyRestError);
    if (body instanceof Response) return body;
    const call = a2aCall(context);
    const params = fromLegacyRestSend(body);
    if (operation === "message:stream") return legacyRestStream(call, () => sendStreamingOp(call, params));
    return legacyRestUnary(call, async () => ({ task: toLegacyRestTask((await sendMessageOp(call, params)).task) }));
  },
});

export const a2aLegacyRestGetTask = defineRoute({
  method: "GET",
  path: "/v1/a2a/v1/tasks/:task",
  auth: "agent",
  summary: "A2A 0.3 HTTP+JSON: tasks/<id>?historyLength=N, and tasks/<id>:subscribe (Server-Sent Events)",
  async handler(context) {
    const { id, verb } = taskParam(context);
    if (verb !== undefined && verb !== "subscribe") return legacyRestError(unknownOperation(context, "A2A 0.3"), context.host.logger);
    const call = a2aCall(context);
    if (verb === "subscribe") return legacyRestStream(call, () => subscribeOp(call, { id }));
    return legacyRestUnary(call, async () => {
      const historyLength = intParam(context.url, "historyLength");
      return toLegacyRestTask(await getTaskOp(call, { id, ...(historyLength === undefined || historyLength === 0 ? {} : { historyLength }) }));
    });
  },
});

export const a2aLegacyRestTaskAction = defineRoute({
  method: "POST",
  path: "/v1/a2a/v1/tasks/:task",
  auth: "agent",
  summary: "A2A 0.3 HTTP+JSON: tasks/<id>:cancel, tasks/<id>:subscribe",
  async handler(context) {
    const { id, verb } = taskParam(context);
    if (verb !== "cancel" && verb !== "subscribe") return legacyRestError(unknownOperation(context, "A2A 0.3"), context.host.logger);
    const call = a2aCall(context);
    if (verb === "subscribe") return legacyRestStream(call, () => subscribeOp(call, { id }));
    return legacyRestUnary(call, async () => toLegacyRestTask(await cancelTaskOp(call, { id })));
  },
});

export const a2aLegacyRestCreatePush = defineRoute({
  method: "POST",
  path: "/v1/a2a/v1/tasks/:task/pushNotificationConfigs",
  auth: "agent",
  summary: "A2A 0.3 HTTP+JSON: create a push notification config ({pushNotificationConfig})",
  async handler(context) {
    requireJson(context.request);
    const body = await readRestBody(context, legacyRestError);
    if (body instanceof Response) return body;
    const call = a2aCall(context);
    const taskId = context.params["task"] ?? "";
    const config = isObject(body) && isObject(body["pushNotificationConfig"]) ? fromLegacyPushConfig(body["pushNotificationConfig"]) : body;
    return legacyRestUnary(call, async () => toLegacyRestPush(await createPushConfig(call.agent, call.auth, { ...(isObject(config) ? config : {}), taskId })));
  },
});

export const a2aLegacyRestListPush = defineRoute({
  method: "GET",
  path: "/v1/a2a/v1/tasks/:task/pushNotificationConfigs",
  auth: "agent",
  summary: "A2A 0.3 HTTP+JSON: a task's push notification configs ({configs, nextPageToken})",
  async handler(context) {
    const call = a2aCall(context);
    return legacyRestUnary(call, async () => ({ configs: (await listPushConfigs(call.agent, call.auth, { taskId: context.params["task"] ?? "" })).configs.map(toLegacyRestPush), nextPageToken: "" }));
  },
});

export const a2aLegacyRestGetPush = defineRoute({
  method: "GET",
  path: "/v1/a2a/v1/tasks/:task/pushNotificationConfigs/:config",
  auth: "agent",
  summary: "A2A 0.3 HTTP+JSON: one push notification config",
  async handler(context) {
    const call = a2aCall(context);
    return legacyRestUnary(call, async () => toLegacyRestPush(await getPushConfig(call.agent, call.auth, { taskId: context.params["task"] ?? "", id: context.params["config"] ?? "" })));
  },
});

export const a2aLegacyRestDeletePush = defineRoute({
  method: "DELETE",
  path: "/v1/a2a/v1/tasks/:task/pushNotificationConfigs/:config",
  auth: "agent",
  summary: "A2A 0.3 HTTP+JSON: delete a push notification config",
  async handler(context) {
    const call = a2aCall(context);
    return legacyRestUnary(call, () => deletePushConfig(call.agent, call.auth, { taskId: context.params["task"] ?? "", id: context.params["config"] ?? "" }));
  },
});

export const a2aLegacyRestCard = defineRoute({
  method: "GET",
  path: "/v1/a2a/v1/card",
  auth: "agent",
  summary: "A2A 0.3 HTTP+JSON: the authenticated extended agent card",
  async handler(context) {
    const call = a2aCall(context);
    return legacyRestUnary(call, () => extendedCardOp(call));
  },
});

/** The 0.3 HTTP+JSON routes, in the order the route table lists them. */
export const A2A_LEGACY_REST_ROUTES = [
  a2aLegacyRestCard,
  a2aLegacyRestMessage,
  a2aLegacyRestGetTask,
  a2aLegacyRestTaskAction,
  a2aLegacyRestCreatePush,
  a2aLegacyRestListPush,
  a2aLegacyRestGetPush,
  a2aLegacyRestDeletePush,
];
