/**
 * Push notification configs (docs/guide/a2a.md "Push notifications"): where a task's updates are
 * posted, kept in storage per task, readable and removable only by the task's owner.
 * @module
 */
import type { AuthContext } from "../../base/auth.ts";
import { randomId } from "../../base/ids.ts";
import { a2aPushKey, a2aPushPrefix } from "../../base/storage/keys.ts";
import type { A2AAgent } from "./agent.ts";
import { A2AError, invalidParams } from "./errors.ts";
import { isObject } from "./incoming.ts";
import { checkPushTarget, checkResolvedTarget } from "./push-target.ts";
import { parseTaskId } from "./task-fold.ts";
import { readTask } from "./task-read.ts";

/** A config as the wire carries it (`TaskPushNotificationConfig`). */
export interface PushConfig {
  id: string;
  taskId: string;
  url: string;
  /** Sent back as `X-A2A-Notification-Token`, so the receiver knows the post is for it. */
  token?: string;
  /** Sent as `Authorization: <scheme> <credentials>`. */
  authentication?: { scheme: string; credentials?: string };
}

/** Configs per task: enough for a few receivers, never a fan-out amplifier. */
export const MAX_CONFIGS_PER_TASK = 10;

export async function createPushConfig(agent: A2AAgent, auth: AuthContext, params: unknown): Promise<PushConfig> {
  if (!isObject(params)) throw invalidParams("params must be a TaskPushNotificationConfig");
  const task = await readTask(agent, stringParam(params, "taskId"), auth);
  const config = readConfig(params, task.id, agent.allowPrivatePush);
  await checkResolvedTarget(config.url, agent.allowPrivatePush, agent.resolveHost);
  const { sessionId, turnId } = parseTaskId(task.id)!;
  const existing = await agent.storage.list(a2aPushPrefix(sessionId, turnId));
  if (existing.length >= MAX_CONFIGS_PER_TASK && !existing.some((key) => key.endsWith(`/${config.id}`))) {
    throw invalidParams(`a task takes at most ${MAX_CONFIGS_PER_TASK} push notification configs`);
  }
  await agent.storage.set(a2aPushKey(sessionId, turnId, config.id), JSON.stringify(config));
  return config;
}

export async function getPushConfig(agent: A2AAgent, auth: AuthContext, params: unknown): Promise<PushConfig> {
  const { taskId, id } = configParams(params);
  await readTask(agent, taskId, auth);
  const { sessionId, turnId } = parseTaskId(taskId)!;
  const stored = await agent.storage.get(a2aPushKey(sessionId, turnId, id));
  if (stored === undefined) throw configNotFound(id);
  return JSON.parse(stored) as PushConfig;
}

export async function listPushConfigs(agent: A2AAgent, auth: AuthContext, params: unknown): Promise<{ configs: PushConfig[]; nextPageToken: string }> {
  if (!isObject(params)) throw invalidParams("params must be an object with the taskId");
  const task = await readTask(agent, stringParam(params, "taskId"), auth);
  const { sessionId, turnId } = parseTaskId(task.id)!;
  return { configs: await configsOf(agent.storage, sessionId, turnId), nextPageToken: "" };
}

export async function deletePushConfig(agent: A2AAgent, auth: AuthContext, params: unknown): Promise<Record<string, never>> {
  const { taskId, id } = configParams(params);
  await readTask(agent, taskId, auth);
  const { sessionId, turnId } = parseTaskId(taskId)!;
  const key = a2aPushKey(sessionId, turnId, id);
  if ((await agent.storage.get(key)) === undefined) throw configNotFound(id);
  await agent.storage.delete(key);
  return {};
}

/** The configs of one task, or of every task of the session. */
export async function configsOf(storage: A2AAgent["storage"], sessionId: string, turnId?: string): Promise<PushConfig[]> {
  const configs: PushConfig[] = [];
  for (const key of await storage.list(a2aPushPrefix(sessionId, turnId))) {
    const stored = await storage.get(key);
    if (stored !== undefined) configs.push(JSON.parse(stored) as PushConfig);
  }
  return configs;
}

/** Checks a config as sent (`id` optional: the server names it). */
export function readConfig(params: Record<string, unknown>, taskId: string, allowPrivate: boolean): PushConfig {
  const url = checkPushTarget(stringParam(params, "url"), allowPrivate).href;
  const id = params["id"] === undefined || params["id"] === "" ? `push_${randomId(12)}` : stringParam(params, "id");
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(id)) throw invalidParams('a push notification config id is 1 to 64 letters, digits, "_" or "-"');
  const token = params["token"];
  if (token !== undefined && (typeof token !== "string" || token.length > 1024)) throw invalidParams("token must be a string of at most 1024 characters");
  const authentication = params["authentication"];
  let auth: PushConfig["authentication"];
  if (authentication !== undefined) {
    if (!isObject(authentication) || typeof authentication["scheme"] !== "string" || !/^[A-Za-z][A-Za-z0-9._~+-]*$/.test(authentication["scheme"])) {
      throw invalidParams("authentication must be {scheme, credentials?} with an HTTP auth scheme");
    }
    const credentials = authentication["credentials"];
    if (credentials !== undefined && (typeof credentials !== "string" || /[\r\n]/.test(credentials))) throw invalidParams("authentication.credentials must be a one-line string");
    auth = { scheme: authentication["scheme"], ...(credentials ? { credentials } : {}) };
  }
  return { id, taskId, url, ...(token ? { token } : {}), ...(auth ? { authentication: auth } : {}) };
}

// --- internals ---

function configParams(params: unknown): { taskId: string; id: string } {
  if (!isObject(params)) throw invalidParams("params must be an object with taskId and id");
  return { taskId: stringParam(params, "taskId"), id: stringParam(params, "id") };
}

function stringParam(params: Record<string, unknown>, key: string): string {
  const value = params[key];
  if (typeof value !== "string" || value === "") throw invalidParams(`params.${key} is required (a string)`);
  return value;
}

const configNotFound = (id: string): A2AError => new A2AError("taskNotFound", `push notification config not found: ${JSON.stringify(id)}`);
