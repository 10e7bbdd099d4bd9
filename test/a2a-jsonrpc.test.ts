/**
 * Every agent is an A2A 1.0 server (docs/guide/a2a.md), driven over real HTTP by the official
 * SDK's client: blocking and immediate sends, a context continued, streaming to completion,
 * subscribing again after a disconnect, several subscribers, cancelling, listing in pages.
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
  client = await clientFor(`${served.url}/hello`);
});
afterEach(() => served.close());

/** Waits until `check` holds for the task, reading it with GetTask. */
async function taskWhen(id: string, check: (state: TaskState) => boolean): Promise<Awaited<ReturnType<Client["getTask"]>>> {
  const deadline = Date.now() + 5000;
  for (;;) {
    const task = await client.getTask({ tenant: "", id, historyLength: undefined });
    if (check(task.status!.state)) return task;
    if (Date.now() > deadline) throw new Error(`task ${id} stayed ${TaskState[task.status!.state]}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe("SendMessage", () => {
  it("blocks until the turn completes and answers the Task with the reply", async () => {
    const result = await client.sendMessage({ tenant: "", message: userMessage("/reply hello there"), configuration: undefined, metadata: undefined });
    if (!("status" in result)) throw new Error("expected a Task");
    expect(result.status!.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(textOf(result.status!.message)).toBe("hello there");
    expect(result.contextId).toMatch(/^ses_/);
    expect(result.history.map((message) => textOf(message))).toEqual(["/reply hello there", "hello there"]);
  });

  it("continues a context: a second task in the same session, the token handled by the host", async () => {
    const first = await client.sendMessage({ tenant: "", message: userMessage("/reply one"), configuration: undefined, metadata: undefined });
    if (!("status" in first)) throw new Error("expected a Task");
    const second = await client.sendMessage({ tenant: "", message: userMessage("/reply two", { contextId: first.contextId }), configuration: undefined, metadata: undefined });
    if (!("status" in second)) throw new Error("expected a Task");
    expect(second.contextId).toBe(first.contextId);
    expect(second.id).not.toBe(first.id);
    expect(textOf(second.status!.message)).toBe("two");
    // Both tasks stay readable, each with its own history.
    const again = await client.getTask({ tenant: "", id: first.id, historyLength: 1 });
    expect(again.history.map((message) => textOf(message))).toEqual(["one"]);
  });

  it("returnImmediately answers at once; GetTask sees the task finish", async () => {
    const result = await client.sendMessage({
      tenant: "",
      message: userMessage("/sleep 300\n/reply later"),
      configuration: { acceptedOutputModes: [], taskPushNotificationConfig: undefined, historyLength: undefined, returnImmediately: true },
      metadata: undefined,
    });
    if (!("status" in result)) throw new Error("expected a Task");
    expect([TaskState.TASK_STATE_SUBMITTED, TaskState.TASK_STATE_WORKING]).toContain(result.status!.state);
    const done = await taskWhen(result.id, (state) => state === TaskState.TASK_STATE_COMPLETED);
    expect(textOf(done.status!.message)).toBe("later");
  });

  it("a failing turn is a failed task with the reason", async () => {
    const result = await client.sendMessage({ tenant: "", message: userMessage("/fail the model is down"), configuration: undefined, metadata: undefined });
    if (!("status" in result)) throw new Error("expected a Task");
    expect(result.status!.state).toBe(TaskState.TASK_STATE_FAILED);
    expect(textOf(result.status!.message)).toContain("the model is down");
  });
});

describe("streaming", () => {
  it("SendStreamingMessage: the Task first, then working, then completed", async () => {
    const frames = [];
    for await (const frame of client.sendMessageStream({ tenant: "", message: userMessage("/reply streamed"), configuration: undefined, metadata: undefined })) frames.push(frame);
    expect(frames[0]!.payload?.$case).toBe("task");
    const states = frames.flatMap((frame) => stateOf(frame) ?? []);
    expect(states[0]).toBe(TaskState.TASK_STATE_SUBMITTED);
    expect(states.at(-1)).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(states).toContain(TaskState.TASK_STATE_WORKING);
    const last = frames.at(-1)!.payload;
    expect(last?.$case === "statusUpdate" && textOf(last.value.status!.message)).toBe("streamed");
  });

  it("SubscribeToTask after a disconnect: the current Task, then the rest; two subscribers see the same", async () => {
    const stream = client.sendMessageStream({ tenant: "", message: userMessage("/sleep 400\n/reply after the gap"), configuration: undefined, metadata: undefined });
    const first = (await stream.next()).value!.payload;
    if (first?.$case !== "task") throw new Error("expected the Task first");
    await stream.return(undefined);
    const subscribe = async (): Promise<TaskState[]> => {
      const states: TaskState[] = [];
      for await (const frame of client.resubscribeTask({ tenant: "", id: first.value.id })) {
        const state = stateOf(frame);
        if (state !== undefined) states.push(state);
      }
      return states;
    };
    const [a, b] = await Promise.all([subscribe(), subscribe()]);
    for (const states of [a, b]) {
      expect([TaskState.TASK_STATE_SUBMITTED, TaskState.TASK_STATE_WORKING]).toContain(states[0]);
      expect(states.at(-1)).toBe(TaskState.TASK_STATE_COMPLETED);
    }
    const done = await client.getTask({ tenant: "", id: first.value.id, historyLength: undefined });
    expect(textOf(done.status!.message)).toBe("after the gap");
  });

  it("subscribing to a finished task is refused (GetTask reads it)", async () => {
    const result = await client.sendMessage({ tenant: "", message: userMessage("/reply done"), configuration: undefined, metadata: undefined });
    if (!("id" in result)) throw new Error("expected a Task");
    const frames = client.resubscribeTask({ tenant: "", id: result.id });
    await expect(frames.next()).rejects.toMatchObject({ name: "UnsupportedOperationError" });
  });
});

describe("CancelTask", () => {
  it("cancels a running task; a second cancel is TaskNotCancelable", async () => {
    const started = await client.sendMessage({
      tenant: "",
      message: userMessage("/sleep 5000\n/reply never"),
      configuration: { acceptedOutputModes: [], taskPushNotificationConfig: undefined, historyLength: undefined, returnImmediately: true },
      metadata: undefined,
    });
    if (!("id" in started)) throw new Error("expected a Task");
    await taskWhen(started.id, (state) => state === TaskState.TASK_STATE_WORKING);
    const canceled = await client.cancelTask({ tenant: "", id: started.id, metadata: undefined });
    expect(canceled.status!.state).toBe(TaskState.TASK_STATE_CANCELED);
    await expect(client.cancelTask({ tenant: "", id: started.id, metadata: undefined })).rejects.toMatchObject({ name: "TaskNotCancelableError" });
  });
});

describe("ListTasks", () => {
  it("pages newest first with a cursor, and filters by context and state", async () => {
    const ids: string[] = [];
    let contextId = "";
    for (const text of ["a", "b", "c", "d", "e"]) {
      const task = await client.sendMessage({ tenant: "", message: userMessage(`/reply ${text}`, contextId ? { contextId } : {}), configuration: undefined, metadata: undefined });
      if (!("id" in task)) throw new Error("expected a Task");
      ids.push(task.id);
      if (text === "b") contextId = "";
      else contextId ||= task.contextId;
    }
    const seen: string[] = [];
    let pageToken = "";
    for (let page = 0; page < 5; page++) {
      const result = await client.listTasks({ tenant: "", contextId: "", status: TaskState.TASK_STATE_UNSPECIFIED, pageSize: 2, pageToken, historyLength: undefined, statusTimestampAfter: undefined, includeArtifacts: undefined });
      expect(result.totalSize).toBe(5);
      seen.push(...result.tasks.map((task) => task.id));
      pageToken = result.nextPageToken;
      if (!pageToken) break;
    }
    expect(seen).toEqual([...ids].reverse());
    const first = await client.getTask({ tenant: "", id: ids[0]!, historyLength: undefined });
    const inContext = await client.listTasks({ tenant: "", contextId: first.contextId, status: TaskState.TASK_STATE_UNSPECIFIED, pageSize: undefined, pageToken: "", historyLength: 0, statusTimestampAfter: undefined, includeArtifacts: undefined });
    expect(inContext.tasks.map((task) => task.id)).toEqual([ids[1], ids[0]]);
    expect(inContext.tasks[0]!.history).toEqual([]);
    const failed = await client.listTasks({ tenant: "", contextId: "", status: TaskState.TASK_STATE_FAILED, pageSize: undefined, pageToken: "", historyLength: undefined, statusTimestampAfter: undefined, includeArtifacts: undefined });
    expect(failed.tasks).toEqual([]);
  });
});
