/**
 * A2A tasks are as durable as sessions (docs/guide/a2a.md "The mapping", "Approvals",
 * "Streaming"): a call parked for approval is answered through A2A, a subscriber follows a task
 * across a server restart on the same sqlite store with nothing lost, and a 0.3 client (the
 * SDK's 0.3 transport) is answered in the 0.3 shapes.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TaskState } from "@a2a-js/sdk";
import { LegacyJsonRpcTransport, parseLegacyAgentCard } from "@a2a-js/sdk/compat/v0_3/client";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createSqliteStorage } from "../drivers/sqlite/index.ts";
import type { StorageDriver } from "../src/base/storage/types.ts";
import { dangerTool } from "./_danger-tool.ts";
import { helloOptions, project } from "./_harness.ts";
import { type ServedHost, clientFor, rpc, serve, stateOf, textOf, userMessage } from "./_a2a.ts";

const { tools, runs } = dangerTool("Deletes things; always needs approval");

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "a2a-durable-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const options = (storage: StorageDriver): Parameters<typeof serve>[0] => helloOptions({ agents: [{ slug: "hello", project: project({ tools }), storage }] });

describe("approvals through A2A", () => {
  it("a parked call is input-required; a message naming the task approves it and the task completes", async () => {
    const served = await serve(options(createSqliteStorage({ path: join(dir, "state.db") })));
    try {
      const client = await clientFor(`${served.url}/hello`);
      const parked = await client.sendMessage({ tenant: "", message: userMessage('/tool danger {"what":"files"}'), configuration: undefined, metadata: undefined });
      if (!("id" in parked)) throw new Error("expected a Task");
      expect(parked.status!.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
      const asked = parked.status!.message!.parts.find((part) => part.content?.$case === "data")?.content;
      expect(asked?.$case === "data" && asked.value).toMatchObject({ approvals: [{ toolName: "danger", input: { what: "files" } }] });
      expect(runs).toEqual([]);
      // An answer that is no decision is refused, and the task still waits.
      await expect(client.sendMessage({ tenant: "", message: userMessage("maybe later", { taskId: parked.id }), configuration: undefined, metadata: undefined })).rejects.toMatchObject({ name: "RequestMalformedError" });
      const done = await client.sendMessage({ tenant: "", message: userMessage("approve", { taskId: parked.id, contextId: parked.contextId }), configuration: undefined, metadata: undefined });
      if (!("id" in done)) throw new Error("expected a Task");
      expect(done.id).toBe(parked.id);
      expect(done.status!.state).toBe(TaskState.TASK_STATE_COMPLETED);
      expect(runs).toEqual(["files"]);
      // A finished task takes no more messages: the context does.
      await expect(client.sendMessage({ tenant: "", message: userMessage("approve", { taskId: parked.id }), configuration: undefined, metadata: undefined })).rejects.toMatchObject({ name: "UnsupportedOperationError" });
    } finally {
      await served.close();
    }
  });

  it("a data part denies; the tool never runs", async () => {
    const served = await serve(options(createSqliteStorage({ path: join(dir, "state.db") })));
    try {
      const endpoint = `${served.url}/hello/v1/a2a`;
      const sent = await rpc(endpoint, { jsonrpc: "2.0", id: 1, method: "SendMessage", params: { message: { messageId: "m1", role: "ROLE_USER", parts: [{ text: '/tool danger {"what":"db"}' }] } } });
      const task = (sent.body["result"] as { task: { id: string; status: { state: string } } }).task;
      expect(task.status.state).toBe("TASK_STATE_INPUT_REQUIRED");
      const denied = await rpc(endpoint, { jsonrpc: "2.0", id: 2, method: "SendMessage", params: { message: { messageId: "m2", role: "ROLE_USER", taskId: task.id, parts: [{ data: { decision: "deny" } }] } } });
      expect((denied.body["result"] as { task: { status: { state: string } } }).task.status.state).toBe("TASK_STATE_COMPLETED");
      expect(runs).toEqual([]);
    } finally {
      await served.close();
    }
  });
});

describe("across a restart", () => {
  it("a subscriber that reconnects to the restarted server gets the task as it is, then the rest", async () => {
    const path = join(dir, "state.db");
    let served: ServedHost = await serve(options(createSqliteStorage({ path })));
    let taskId: string;
    let earlier: string;
    try {
      const client = await clientFor(`${served.url}/hello`);
      const first = await client.sendMessage({ tenant: "", message: userMessage("/reply before the restart"), configuration: undefined, metadata: undefined });
      if (!("id" in first)) throw new Error("expected a Task");
      earlier = first.id;
      const parked = await client.sendMessage({ tenant: "", message: userMessage('/tool danger {"what":"logs"}', { contextId: first.contextId }), configuration: undefined, metadata: undefined });
      if (!("id" in parked)) throw new Error("expected a Task");
      taskId = parked.id;
      // A subscriber is following when the server goes away.
      const frames = client.resubscribeTask({ tenant: "", id: taskId });
      expect(stateOf((await frames.next()).value!)).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
      await served.close();
      await frames.return(undefined);
    } catch (error) {
      await served.close();
      throw error;
    }
    served = await serve(options(createSqliteStorage({ path })));
    try {
      const client = await clientFor(`${served.url}/hello`);
      const before = await client.getTask({ tenant: "", id: earlier, historyLength: undefined });
      expect(before.status!.state).toBe(TaskState.TASK_STATE_COMPLETED);
      expect(textOf(before.status!.message)).toBe("before the restart");
      const states: TaskState[] = [];
      let resolveAnswered!: () => void;
      const answered = new Promise<void>((resolve) => (resolveAnswered = resolve));
      const following = (async () => {
        for await (const frame of client.resubscribeTask({ tenant: "", id: taskId })) {
          const state = stateOf(frame);
          if (state !== undefined) states.push(state);
          if (states.length === 1) resolveAnswered();
        }
      })();
      await answered;
      const done = await client.sendMessage({ tenant: "", message: userMessage("yes", { taskId }), configuration: undefined, metadata: undefined });
      await following;
      expect("id" in done && done.status!.state).toBe(TaskState.TASK_STATE_COMPLETED);
      expect(states[0]).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
      expect(states.slice(1)).toEqual([TaskState.TASK_STATE_WORKING, TaskState.TASK_STATE_COMPLETED]);
      expect(runs).toEqual(["logs"]);
      const listed = await client.listTasks({ tenant: "", contextId: "", status: 0, pageSize: undefined, pageToken: "", historyLength: undefined, statusTimestampAfter: undefined, includeArtifacts: undefined });
      expect(listed.tasks.map((task) => task.id)).toEqual([taskId, earlier]);
    } finally {
      await served.close();
    }
  });
});

describe("0.3 clients", () => {
  it("message/send, tasks/get and message/stream answer the 0.3 shapes", async () => {
    const served = await serve(options(createSqliteStorage({ path: join(dir, "state.db") })));
    try {
      // A 0.3 client finds the endpoint from the card's 0.3 fields.
      const card = parseLegacyAgentCard(await (await fetch(`${served.url}/hello/.well-known/agent-card.json`)).json());
      expect(card.supportedInterfaces[0]).toMatchObject({ url: `${served.url}/hello/v1/a2a`, protocolBinding: "JSONRPC", protocolVersion: "0.3.0" });
      const legacy = new LegacyJsonRpcTransport({ endpoint: card.supportedInterfaces[0]!.url });
      const task = await legacy.sendMessage({ tenant: "", message: userMessage("/reply from 0.3"), configuration: undefined, metadata: undefined });
      if (!("id" in task)) throw new Error("expected a Task");
      expect(task.status!.state).toBe(TaskState.TASK_STATE_COMPLETED);
      expect(textOf(task.status!.message)).toBe("from 0.3");
      const again = await legacy.getTask({ tenant: "", id: task.id, historyLength: undefined });
      expect(again.history.map((message) => textOf(message))).toEqual(["/reply from 0.3", "from 0.3"]);
      const states: TaskState[] = [];
      for await (const frame of legacy.sendMessageStream({ tenant: "", message: userMessage("/reply streamed", { contextId: task.contextId }), configuration: undefined, metadata: undefined })) {
        const state = stateOf(frame);
        if (state !== undefined) states.push(state);
      }
      expect(states.at(-1)).toBe(TaskState.TASK_STATE_COMPLETED);
      // The raw 0.3 wire: kinds and lower-case states.
      const raw = await rpc(`${served.url}/hello/v1/a2a`, { jsonrpc: "2.0", id: 9, method: "tasks/get", params: { id: task.id } }, { "a2a-version": "0.3" });
      expect(raw.body["result"]).toMatchObject({ kind: "task", id: task.id, status: { state: "completed", message: { kind: "message", role: "agent", parts: [{ kind: "text", text: "from 0.3" }] } } });
    } finally {
      await served.close();
    }
  });
});
