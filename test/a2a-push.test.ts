/**
 * A2A push notifications (docs/guide/a2a.md "Push notifications"), over real HTTP to a local
 * receiver: configs created, read, listed and removed through the SDK in both bindings and in the
 * 0.3 names; every status update of the task posted in order with the config's token and
 * authentication; targets checked; and a receiver that was down gets the updates from the next
 * server on the same sqlite store, each under the id it would have had.
 */
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TaskState } from "@a2a-js/sdk";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createSqliteStorage } from "../drivers/sqlite/index.ts";
import { createMemoryStorage } from "../src/base/storage/memory.ts";
import type { StorageDriver } from "../src/base/storage/types.ts";
import { eventually, helloOptions, project, severable } from "./_harness.ts";
import { clientFor, rpc, serve, userMessage } from "./_a2a.ts";

interface Received {
  headers: IncomingHttpHeaders;
  body: { statusUpdate?: { taskId: string; status: { state: string } }; artifactUpdate?: unknown };
}

/** A local receiver: records each post; while `down`, answers 503. */
function receiver(): Promise<{ url: string; posts: Received[]; setDown(down: boolean): void; close(): Promise<void> }> {
  const posts: Received[] = [];
  let down = false;
  const server: Server = createServer((request, response) => {
    let text = "";
    request.on("data", (chunk: Buffer) => (text += chunk.toString()));
    request.on("end", () => {
      if (down) {
        response.writeHead(503).end();
        return;
      }
      posts.push({ headers: request.headers, body: JSON.parse(text) as Received["body"] });
      response.writeHead(200).end();
    });
  });
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () => {
      const address = server.address() as { port: number };
      resolve({
        url: `http://127.0.0.1:${address.port}/hook`,
        posts,
        setDown: (value) => (down = value),
        close: () => new Promise((done) => server.close(() => done())),
      });
    }),
  );
}

const options = (storage: StorageDriver, dev = true, retryDelaysMs: number[] = [50, 50, 50]): Parameters<typeof serve>[0] =>
  helloOptions({ dev, agents: [{ slug: "hello", project: project(), storage }], channels: { retryDelaysMs } });

const statesOf = (posts: Received[]): string[] => posts.flatMap((post) => (post.body.statusUpdate ? [post.body.statusUpdate.status.state] : []));

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "a2a-push-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("push notifications", () => {
  it("configs through the SDK; each update posted in order with the token and authentication", async () => {
    const hook = await receiver();
    const storage = createMemoryStorage();
    const served = await serve(options(storage));
    try {
      const client = await clientFor(`${served.url}/hello`);
      expect((await client.getAgentCard()).capabilities?.pushNotifications).toBe(true);
      const started = await client.sendMessage({
        tenant: "",
        message: userMessage("/sleep 300\n/reply pushed"),
        configuration: { acceptedOutputModes: [], taskPushNotificationConfig: undefined, historyLength: undefined, returnImmediately: true },
        metadata: undefined,
      });
      if (!("id" in started)) throw new Error("expected a Task");
      const config = await client.createTaskPushNotificationConfig({
        tenant: "",
        id: "",
        taskId: started.id,
        url: hook.url,
        token: "tok-1",
        authentication: { scheme: "Bearer", credentials: "receiver-secret" },
      });
      expect(config.id).toMatch(/^push_/);
      expect((await client.getTaskPushNotificationConfig({ tenant: "", taskId: started.id, id: config.id })).url).toBe(hook.url);
      expect((await client.listTaskPushNotificationConfig({ tenant: "", taskId: started.id, pageSize: 0, pageToken: "" })).configs.map((item) => item.id)).toEqual([config.id]);
      await eventually(async () => (statesOf(hook.posts).includes("TASK_STATE_COMPLETED") ? true : undefined), 5000, "the completed update");
      const states = statesOf(hook.posts);
      expect(states.at(-1)).toBe("TASK_STATE_COMPLETED");
      expect(hook.posts.every((post) => post.body.statusUpdate?.taskId === started.id)).toBe(true);
      expect(hook.posts[0]!.headers["x-a2a-notification-token"]).toBe("tok-1");
      expect(hook.posts[0]!.headers["authorization"]).toBe("Bearer receiver-secret");
      const ids = hook.posts.map((post) => post.headers["a2a-notification-id"]);
      expect(new Set(ids).size).toBe(ids.length);
      await client.deleteTaskPushNotificationConfig({ tenant: "", taskId: started.id, id: config.id });
      expect((await client.listTaskPushNotificationConfig({ tenant: "", taskId: started.id, pageSize: 0, pageToken: "" })).configs).toEqual([]);
      // Removing the session removes its configs, credentials included.
      await client.createTaskPushNotificationConfig({ tenant: "", id: "again", taskId: started.id, url: hook.url, token: "", authentication: { scheme: "Bearer", credentials: "x" } });
      expect(await storage.list(`a2a/push/${started.contextId}/`)).toHaveLength(1);
      expect((await fetch(`${served.url}/hello/v1/session/${started.contextId}`, { method: "DELETE" })).status).toBe(200);
      expect(await storage.list(`a2a/push/${started.contextId}/`)).toEqual([]);
    } finally {
      await served.close();
      await hook.close();
    }
  });

  it("an inline config on SendMessage, over HTTP+JSON, gets the task's updates", async () => {
    const hook = await receiver();
    const served = await serve(options(createMemoryStorage()));
    try {
      const client = await clientFor(`${served.url}/hello`, {}, "HTTP+JSON");
      const task = await client.sendMessage({
        tenant: "",
        message: userMessage("/sleep 100\n/reply inline"),
        configuration: {
          acceptedOutputModes: [],
          taskPushNotificationConfig: { tenant: "", id: "mine", taskId: "", url: hook.url, token: "", authentication: undefined },
          historyLength: undefined,
          returnImmediately: true,
        },
        metadata: undefined,
      });
      if (!("id" in task)) throw new Error("expected a Task");
      await eventually(async () => (statesOf(hook.posts).includes("TASK_STATE_COMPLETED") ? true : undefined), 5000, "the completed update");
      expect((await client.getTaskPushNotificationConfig({ tenant: "", taskId: task.id, id: "mine" })).url).toBe(hook.url);
    } finally {
      await served.close();
      await hook.close();
    }
  });

  it("targets are checked: private addresses only under --dev", async () => {
    const served = await serve(options(createMemoryStorage(), false));
    try {
      const endpoint = `${served.url}/hello/v1/a2a`;
      const sent = await rpc(endpoint, { jsonrpc: "2.0", id: 1, method: "SendMessage", params: { message: { messageId: "m", role: "ROLE_USER", parts: [{ text: "/reply x" }] } } });
      const taskId = (sent.body["result"] as { task: { id: string } }).task.id;
      for (const url of ["http://127.0.0.1:9/hook", "http://localhost/hook", "http://10.1.2.3/", "http://192.168.0.1/", "http://[::1]/", "http://169.254.169.254/latest", "ftp://example.com/", "not a url", "https://user:pw@example.com/"]) {
        const answer = await rpc(endpoint, { jsonrpc: "2.0", id: 2, method: "CreateTaskPushNotificationConfig", params: { taskId, url } });
        expect((answer.body["error"] as { code: number }).code, url).toBe(-32602);
      }
      const ok = await rpc(endpoint, { jsonrpc: "2.0", id: 3, method: "CreateTaskPushNotificationConfig", params: { taskId, url: "https://example.com/hook", id: "public" } });
      expect(ok.body["result"]).toEqual({ id: "public", taskId, url: "https://example.com/hook" });
      // The 0.3 names see the same config, in the 0.3 shape.
      const legacy = await rpc(endpoint, { jsonrpc: "2.0", id: 4, method: "tasks/pushNotificationConfig/list", params: { id: taskId } }, { "a2a-version": "0.3" });
      expect(legacy.body["result"]).toEqual([{ taskId, pushNotificationConfig: { id: "public", url: "https://example.com/hook" } }]);
    } finally {
      await served.close();
    }
    // A project that allows private targets takes them outside --dev too.
    const allowing = await serve(helloOptions({ agents: [{ slug: "hello", project: project({ agent: { a2a: { allowPrivatePushTargets: true } } }), storage: createMemoryStorage() }] }));
    try {
      const endpoint = `${allowing.url}/hello/v1/a2a`;
      const sent = await rpc(endpoint, { jsonrpc: "2.0", id: 1, method: "SendMessage", params: { message: { messageId: "m", role: "ROLE_USER", parts: [{ text: "/reply x" }] } } });
      const taskId = (sent.body["result"] as { task: { id: string } }).task.id;
      const ok = await rpc(endpoint, { jsonrpc: "2.0", id: 2, method: "CreateTaskPushNotificationConfig", params: { taskId, url: "http://10.1.2.3/hook", id: "lan" } });
      expect(ok.body["result"]).toMatchObject({ id: "lan", url: "http://10.1.2.3/hook" });
    } finally {
      await allowing.close();
    }
  });

  it("a receiver down during the task gets every update from the next server on the same store", async () => {
    const hook = await receiver();
    const path = join(dir, "state.db");
    // The first retry is due in 2 s: the server goes away before, the post still in its outbox.
    let served = await serve(options(createSqliteStorage({ path }), true, [2000]));
    let taskId: string;
    try {
      hook.setDown(true);
      const endpoint = `${served.url}/hello/v1/a2a`;
      const push = { url: hook.url, id: "crash" };
      const sent = await rpc(endpoint, {
        jsonrpc: "2.0",
        id: 1,
        method: "SendMessage",
        params: { message: { messageId: "m", role: "ROLE_USER", parts: [{ text: "/reply survived" }] }, configuration: { taskPushNotificationConfig: push } },
      });
      const task = (sent.body["result"] as { task: { id: string; status: { state: string } } }).task;
      taskId = task.id;
      expect(task.status.state).toBe("TASK_STATE_COMPLETED");
      await new Promise((resolve) => setTimeout(resolve, 80));
    } finally {
      await served.close();
    }
    expect(hook.posts).toEqual([]);
    hook.setDown(false);
    served = await serve(options(createSqliteStorage({ path })));
    try {
      const client = await clientFor(`${served.url}/hello`);
      await eventually(async () => (statesOf(hook.posts).includes("TASK_STATE_COMPLETED") ? true : undefined), 5000, "the completed update after the restart");
      expect(statesOf(hook.posts).at(-1)).toBe("TASK_STATE_COMPLETED");
      expect(hook.posts.every((post) => post.body.statusUpdate?.taskId === taskId)).toBe(true);
      expect((await client.getTask({ tenant: "", id: taskId, historyLength: undefined })).status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    } finally {
      await served.close();
      await hook.close();
    }
  });

  it("across a crash: the server dies with updates undelivered; the next one on the same store posts them", async () => {
    const hook = await receiver();
    const inner = createMemoryStorage();
    const crashing = severable(inner);
    // The first server never drains: it is cut off from the store, as a killed process is. Its
    // failed post is due again in 2 s, from the outbox the next server reads.
    const first = await serve(options(crashing.driver, true, [2000]));
    let taskId: string;
    try {
      hook.setDown(true);
      const endpoint = `${first.url}/hello/v1/a2a`;
      const sent = await rpc(endpoint, {
        jsonrpc: "2.0",
        id: 1,
        method: "SendMessage",
        params: { message: { messageId: "m", role: "ROLE_USER", parts: [{ text: "/reply after the crash" }] }, configuration: { taskPushNotificationConfig: { url: hook.url } } },
      });
      taskId = (sent.body["result"] as { task: { id: string } }).task.id;
      await eventually(async () => ((await inner.get(`channels/_a2a/delivered/${taskId.split(".")[0]}`)) !== undefined ? true : undefined), 5000, "the delivery cursor");
      await new Promise((resolve) => setTimeout(resolve, 80));
      crashing.sever();
      await first.server.close(true);
    } catch (error) {
      await first.close();
      throw error;
    }
    expect(hook.posts).toEqual([]);
    hook.setDown(false);
    const second = await serve(options(inner));
    try {
      // Start-up (as `agent-serve serve` does before listening) resumes the unfinished deliveries.
      await second.host.ready();
      await eventually(async () => (statesOf(hook.posts).includes("TASK_STATE_COMPLETED") ? true : undefined), 5000, "the completed update after the crash");
      expect(hook.posts.every((post) => post.body.statusUpdate?.taskId === taskId)).toBe(true);
      const ids = hook.posts.map((post) => post.headers["a2a-notification-id"]);
      expect(new Set(ids).size).toBe(ids.length);
    } finally {
      await second.close();
      await hook.close();
    }
  });
});
