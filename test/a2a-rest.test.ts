/**
 * The HTTP+JSON binding (docs/guide/a2a.md "HTTP+JSON"), driven by the official SDK's REST
 * transport over real HTTP: the same operations as JSON-RPC at one URL each, errors as HTTP
 * statuses with the protocol's reason.
 */
import { TaskState } from "@a2a-js/sdk";
import type { Client } from "@a2a-js/sdk/client";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { helloOptions } from "./_harness.ts";
import { type ServedHost, clientFor, serve, stateOf, textOf, userMessage } from "./_a2a.ts";

let served: ServedHost;
let client: Client;

beforeEach(async () => {
  served = await serve(helloOptions());
  client = await clientFor(`${served.url}/hello`, {}, "HTTP+JSON");
});
afterEach(() => served.close());

const immediately = { acceptedOutputModes: [], taskPushNotificationConfig: undefined, historyLength: undefined, returnImmediately: true };

describe("HTTP+JSON", () => {
  it("sends (blocking and not), reads, lists and streams", async () => {
    const task = await client.sendMessage({ tenant: "", message: userMessage("/reply over rest"), configuration: undefined, metadata: undefined });
    if (!("id" in task)) throw new Error("expected a Task");
    expect(task.status!.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(textOf(task.status!.message)).toBe("over rest");
    const read = await client.getTask({ tenant: "", id: task.id, historyLength: 1 });
    expect(read.history.map((message) => textOf(message))).toEqual(["over rest"]);

    const later = await client.sendMessage({ tenant: "", message: userMessage("/sleep 200\n/reply later", { contextId: task.contextId }), configuration: immediately, metadata: undefined });
    if (!("id" in later)) throw new Error("expected a Task");
    expect(later.status!.state).not.toBe(TaskState.TASK_STATE_COMPLETED);
    const states: TaskState[] = [];
    for await (const frame of client.resubscribeTask({ tenant: "", id: later.id })) {
      const state = stateOf(frame);
      if (state !== undefined) states.push(state);
    }
    expect(states.at(-1)).toBe(TaskState.TASK_STATE_COMPLETED);

    const streamed: TaskState[] = [];
    for await (const frame of client.sendMessageStream({ tenant: "", message: userMessage("/reply streamed"), configuration: undefined, metadata: undefined })) {
      const state = stateOf(frame);
      if (state !== undefined) streamed.push(state);
    }
    expect(streamed[0]).toBe(TaskState.TASK_STATE_SUBMITTED);
    expect(streamed.at(-1)).toBe(TaskState.TASK_STATE_COMPLETED);

    const page = await client.listTasks({ tenant: "", contextId: task.contextId, status: TaskState.TASK_STATE_COMPLETED, pageSize: 1, pageToken: "", historyLength: undefined, statusTimestampAfter: undefined, includeArtifacts: undefined });
    expect(page.tasks.map((listed) => listed.id)).toEqual([later.id]);
    const next = await client.listTasks({ tenant: "", contextId: task.contextId, status: TaskState.TASK_STATE_COMPLETED, pageSize: 1, pageToken: page.nextPageToken, historyLength: undefined, statusTimestampAfter: undefined, includeArtifacts: undefined });
    expect(next.tasks.map((listed) => listed.id)).toEqual([task.id]);
    expect(next.nextPageToken).toBe("");
  });

  it("cancels a running task; errors carry the protocol's reason", async () => {
    const running = await client.sendMessage({ tenant: "", message: userMessage("/sleep 5000"), configuration: immediately, metadata: undefined });
    if (!("id" in running)) throw new Error("expected a Task");
    const canceled = await client.cancelTask({ tenant: "", id: running.id, metadata: undefined });
    expect(canceled.status!.state).toBe(TaskState.TASK_STATE_CANCELED);
    await expect(client.cancelTask({ tenant: "", id: running.id, metadata: undefined })).rejects.toMatchObject({ name: "TaskNotCancelableError" });
    await expect(client.getTask({ tenant: "", id: "nope", historyLength: undefined })).rejects.toMatchObject({ name: "TaskNotFoundError", statusCode: 404 });

    const base = `${served.url}/hello/v1/a2a`;
    const unknown = await fetch(`${base}/tasks/nope`);
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual({
      error: { code: 404, status: "NOT_FOUND", message: 'task not found: "nope"', details: [{ "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason: "TASK_NOT_FOUND", domain: "a2a-protocol.org" }] },
    });
    const bad = async (path: string, init?: RequestInit): Promise<[number, string]> => {
      const response = await fetch(`${base}${path}`, init);
      const body = (await response.json()) as { error: { details: Array<{ reason: string }> } };
      return [response.status, body.error.details[0]!.reason];
    };
    const post = (body: string): RequestInit => ({ method: "POST", headers: { "content-type": "application/json" }, body });
    expect(await bad("/message:send", post("{oops"))).toEqual([400, "INVALID_PARAMS"]);
    expect(await bad("/message:send", post("{}"))).toEqual([400, "INVALID_PARAMS"]);
    expect(await bad("/message:send", post(JSON.stringify({ message: { messageId: "m", role: "ROLE_USER", parts: [{ raw: "aGk=", mediaType: "not a type" }] } })))).toEqual([400, "INVALID_PARAMS"]);
    expect(await bad("/message:fly", post("{}"))).toEqual([404, "INVALID_PARAMS"]);
    expect(await bad("/tasks?pageSize=1000")).toEqual([400, "INVALID_PARAMS"]);
    expect(await bad("/tasks?historyLength=x")).toEqual([400, "INVALID_PARAMS"]);
    expect(await bad(`/tasks/${running.id}:subscribe`, { method: "POST" })).toEqual([400, "UNSUPPORTED_OPERATION"]);
    expect(await bad(`/tasks/${running.id}/pushNotificationConfigs/none`)).toEqual([404, "TASK_NOT_FOUND"]);
    expect(await bad(`/tasks/${running.id}/pushNotificationConfigs`, post(JSON.stringify({ url: "http://10.0.0.1/hook" })))).toEqual([400, "INVALID_PARAMS"]);
    expect(await bad("/extendedAgentCard")).toEqual([400, "EXTENDED_AGENT_CARD_NOT_CONFIGURED"]);
    expect(await bad("/tasks", { headers: { "a2a-version": "9.9" } })).toEqual([400, "VERSION_NOT_SUPPORTED"]);
    expect((await fetch(`${base}/message:send`, { method: "POST", headers: { "content-type": "text/plain" }, body: "{}" })).status).toBe(415);
  });
});
