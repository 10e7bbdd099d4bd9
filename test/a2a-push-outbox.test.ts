/**
 * Push notifications from a durable outbox (docs/design/a2a-push.md), over real HTTP to a local
 * receiver: an inline config misses none of a task that finishes at once; a receiver down for
 * longer than a whole retry round of the old delivery still gets every update later, in order,
 * each under one id; and a receiver that never comes back is given up on after the bounded
 * schedule, with a failure record and nothing left to post.
 */
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { createMemoryStorage } from "../src/base/storage/memory.ts";
import { eventually, helloOptions, project } from "./_harness.ts";
import { type ServedHost, rpc, serve } from "./_a2a.ts";

interface Received {
  headers: IncomingHttpHeaders;
  body: { statusUpdate?: { taskId: string; status: { state: string } } };
}

/** A local receiver: records each post; while `down`, answers 503 (and counts the refusals). */
async function receiver(): Promise<{ url: string; posts: Received[]; refused: () => number; setDown(down: boolean): void; close(): Promise<void> }> {
  const posts: Received[] = [];
  let down = false;
  let refused = 0;
  const server: Server = createServer((request, response) => {
    let text = "";
    request.on("data", (chunk: Buffer) => (text += chunk.toString()));
    request.on("end", () => {
      if (down) {
        refused++;
        response.writeHead(503).end();
        return;
      }
      posts.push({ headers: request.headers, body: JSON.parse(text) as Received["body"] });
      response.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${address.port}/hook`,
    posts,
    refused: () => refused,
    setDown: (value) => (down = value),
    close: () => new Promise((done) => server.close(() => done())),
  };
}

const open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const item of open.splice(0).reverse()) await item.close();
});

/**
 * The memory store, with the creation of push configs held back while `slowConfigs` is set: the turn and
 * the delivery of its events then run before the config lands, the race a task that finishes at
 * once makes on a busy store.
 */
function storeWithSlowConfigs(): { storage: ReturnType<typeof createMemoryStorage>; slowConfigs: { on: boolean } } {
  const inner = createMemoryStorage();
  const slowConfigs = { on: false };
  const storage: ReturnType<typeof createMemoryStorage> = Object.create(inner) as ReturnType<typeof createMemoryStorage>;
  // Creating a config first counts the task's configs (a list under the task's own prefix).
  storage.list = async (prefix) => {
    if (slowConfigs.on && /^a2a\/push\/ses_[^/]+\/turn_/.test(prefix)) await new Promise((resolve) => setTimeout(resolve, 500));
    return inner.list(prefix);
  };
  return { storage, slowConfigs };
}

async function served(retryDelaysMs?: number[], store = storeWithSlowConfigs()): Promise<{ host: ServedHost; storage: ReturnType<typeof createMemoryStorage>; endpoint: string }> {
  const { storage } = store;
  const host = await serve(helloOptions({ dev: true, agents: [{ slug: "hello", project: project(), storage }], ...(retryDelaysMs ? { channels: { retryDelaysMs } } : {}) }));
  open.push(host);
  return { host, storage, endpoint: `${host.url}/hello/v1/a2a` };
}

const statesOf = (posts: Received[]): string[] => posts.flatMap((post) => (post.body.statusUpdate ? [post.body.statusUpdate.status.state] : []));

async function sendWithPush(endpoint: string, text: string, url: string, returnImmediately = false): Promise<string> {
  const sent = await rpc(endpoint, {
    jsonrpc: "2.0",
    id: 1,
    method: "SendMessage",
    params: { message: { messageId: crypto.randomUUID(), role: "ROLE_USER", parts: [{ text }] }, configuration: { returnImmediately, taskPushNotificationConfig: { url, id: "hook" } } },
  });
  expect(sent.status).toBe(200);
  return (sent.body["result"] as { task: { id: string } }).task.id;
}

describe("push notifications from the outbox", () => {
  it("an inline config gets every update of a task that finished before the config was stored", async () => {
    const hook = await receiver();
    open.push(hook);
    const store = storeWithSlowConfigs();
    const { endpoint } = await served(undefined, store);
    // A slow task's updates are the reference: its config is stored long before its first update.
    const slow = await sendWithPush(endpoint, "/sleep 400\n/reply slow", hook.url, true);
    await eventually(async () => (statesOf(hook.posts).at(-1) === "TASK_STATE_COMPLETED" ? true : undefined), 5000, "the slow task completed");
    const reference = statesOf(hook.posts);
    expect(reference[0]).toBe("TASK_STATE_WORKING");
    hook.posts.splice(0);

    // The config lands half a second after the message: the task has finished, and its events
    // went through the delivery, before it exists.
    store.slowConfigs.on = true;
    const fast = await sendWithPush(endpoint, "/reply fast", hook.url, true);
    await eventually(async () => (statesOf(hook.posts).at(-1) === "TASK_STATE_COMPLETED" ? true : undefined), 5000, "the fast task completed");
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(statesOf(hook.posts)).toEqual(reference);
    expect(hook.posts.every((post) => post.body.statusUpdate?.taskId === fast)).toBe(true);
    const ids = hook.posts.map((post) => String(post.headers["a2a-notification-id"]));
    expect(new Set(ids).size).toBe(ids.length);
    expect(slow).not.toBe(fast);
  });

  it("a receiver down longer than a retry round gets every update later, in order, once each", async () => {
    const hook = await receiver();
    open.push(hook);
    // Retries over about 16 s: the receiver is down for the first three attempts at least.
    const { endpoint, storage } = await served([100, 200, 400, 800, 1600, 3200, 10_000]);
    hook.setDown(true);
    const taskId = await sendWithPush(endpoint, "/reply while down", hook.url);
    await eventually(async () => (hook.refused() >= 3 ? true : undefined), 5000, "three refused attempts");
    expect(hook.posts).toEqual([]);
    hook.setDown(false);
    await eventually(async () => (statesOf(hook.posts).at(-1) === "TASK_STATE_COMPLETED" ? true : undefined), 15_000, "the updates after the receiver came back");
    expect(statesOf(hook.posts)[0]).toBe("TASK_STATE_WORKING");
    expect(hook.posts.every((post) => post.body.statusUpdate?.taskId === taskId)).toBe(true);
    const ids = hook.posts.map((post) => String(post.headers["a2a-notification-id"]));
    expect(new Set(ids).size).toBe(ids.length);
    // In log order: the ids carry the log index.
    const indexes = ids.map((id) => Number(id.split(".")[1]));
    expect(indexes).toEqual([...indexes].sort((a, b) => a - b));
    // Each entry is deleted once its post was answered: the outbox empties.
    await eventually(async () => ((await storage.list("a2a/push-outbox/")).length === 0 ? true : undefined), 5000, "the outbox emptied");
  });

  it("gives up after the bounded schedule: a failure record, and nothing left to post", async () => {
    const hook = await receiver();
    open.push(hook);
    const { endpoint, storage } = await served([50, 50]);
    hook.setDown(true);
    const taskId = await sendWithPush(endpoint, "/reply nobody listens", hook.url);
    const sessionId = taskId.split(".")[0]!;
    const failures = await eventually(async () => {
      const keys = await storage.list(`a2a/push-failed/${sessionId}/`);
      return keys.length > 0 ? keys : undefined;
    }, 5000, "the failure record");
    const record = JSON.parse((await storage.get(failures[0]!))!) as Record<string, unknown>;
    expect(record).toMatchObject({ configId: "hook", taskId, attempts: 3 });
    // The record is written first, then the config's pending updates are dropped.
    await eventually(async () => ((await storage.list("a2a/push-outbox/")).length === 0 ? true : undefined), 5000, "the outbox dropped");
    const refused = hook.refused();
    expect(refused).toBe(3);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(hook.refused()).toBe(refused);
    // Removing the session removes the record too.
    expect((await fetch(`${endpoint.replace("/v1/a2a", "")}/v1/session/${sessionId}`, { method: "DELETE" })).status).toBe(200);
    expect(await storage.list(`a2a/push-failed/${sessionId}/`)).toEqual([]);
  });
});
