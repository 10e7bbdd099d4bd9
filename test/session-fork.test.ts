/**
 * Forking a session (docs/guide/forking.md) over HTTP, on memory and sqlite stores: the fork holds
 * the source's events up to the index (same indexes and times), `session.forked`, and the
 * conversation as it stood there, cut back to the last whole step inside a turn; it continues on
 * its own with a message while the source stays as it was; only the owner forks, and bad input is
 * a 4xx that writes nothing.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as v from "valibot";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createPostgresStorage } from "../drivers/postgres/index.ts";
import { createRedisStorage } from "../drivers/redis/index.ts";
import { createSqliteStorage } from "../drivers/sqlite/index.ts";
import { createMemoryStorage } from "../src/base/storage/memory.ts";
import type { StorageDriver } from "../src/base/storage/types.ts";
import { bearerAuth } from "../src/base/auth-policies.ts";
import { defineTool } from "../src/entries/tools.ts";
import { helloOptions, project } from "./_harness.ts";
import { serve } from "./_a2a.ts";
import { type PostgresServer, POSTGRES_BIN, POSTGRES_MISSING, startPostgresServer } from "./_postgres-server.ts";
import { type RedisServer, REDIS_MISSING, REDIS_SERVER, startRedisServer } from "./_redis-server.ts";

interface Line {
  index: number;
  type: string;
  at: string;
  turnId?: string;
  data: Record<string, unknown>;
}

const tools = {
  add: defineTool({
    description: "Adds two numbers",
    inputSchema: v.object({ a: v.number(), b: v.number() }),
    execute: ({ a, b }) => a + b,
  }),
};

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "fork-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

async function conversationOf(storage: StorageDriver, sessionId: string): Promise<Array<{ role: string }>> {
  const messages: Array<{ role: string }> = [];
  for await (const batch of storage.read(`sessions/${sessionId}/conversation`)) for (const line of batch) messages.push(JSON.parse(line) as { role: string });
  return messages;
}

let redis: RedisServer | undefined;
let pg: PostgresServer | undefined;
beforeAll(async () => {
  if (REDIS_SERVER) redis = await startRedisServer();
  if (POSTGRES_BIN) pg = await startPostgresServer();
}, 60_000);
afterAll(async () => {
  await redis?.close();
  await pg?.close();
});

const stores: Array<[string, () => StorageDriver, boolean]> = [
  ["memory", () => createMemoryStorage(), true],
  ["sqlite", () => createSqliteStorage({ path: join(dir, "state.db") }), true],
  [`redis${REDIS_MISSING}`, () => createRedisStorage({ url: redis!.url, prefix: `fork-${Date.now()}:` }), REDIS_SERVER !== undefined],
  [`postgres${POSTGRES_MISSING}`, () => createPostgresStorage({ url: pg!.url, namespace: `fork${Date.now()}` }), POSTGRES_BIN !== undefined],
];

for (const [kind, makeStorage, available] of stores) {
  describe.skipIf(!available)(`forking a session [${kind}]`, () => {
    it("copies the events up to the index, records session.forked, keeps the conversation as it stood, and continues on its own", async () => {
      const storage = makeStorage();
      const served = await serve(helloOptions({ agents: [{ slug: "hello", project: project({ tools }), storage }] }));
      const base = `${served.url}/hello`;
      const post = (path: string, body: unknown) => fetch(`${base}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
      const eventsOf = async (sessionId: string): Promise<Line[]> =>
        (await (await fetch(`${base}/v1/session/${sessionId}/events`)).text()).trim().split("\n").map((line) => JSON.parse(line) as Line);
      try {
        const created = (await (await post("/v1/session", { message: '/tool add {"a":1,"b":2}' })).json()) as { sessionId: string; continuationToken: string };
        const source = created.sessionId;
        const settled = async (sessionId: string, turns: number) => {
          for (let i = 0; i < 200; i++) {
            const events = await eventsOf(sessionId);
            if (events.filter((event) => event.type === "session.waiting").length >= turns) return events;
            await new Promise((resolve) => setTimeout(resolve, 10));
          }
          throw new Error("the turn did not settle");
        };
        await settled(source, 1);
        expect((await post(`/v1/session/${source}`, { message: "/reply second", continuationToken: created.continuationToken })).status).toBe(200);
        const before = await settled(source, 2);
        const sourceConversation = await conversationOf(storage, source);
        expect(sourceConversation.map((message) => message.role)).toEqual(["user", "assistant", "tool", "assistant", "user", "assistant"]);

        // At the end of the first turn: every message of it.
        const firstEnd = before.find((event) => event.type === "turn.completed")!.index;
        const whole = await post(`/v1/session/${source}/fork`, { atIndex: firstEnd });
        expect(whole.status).toBe(200);
        const answer = (await whole.json()) as { sessionId: string; continuationToken: string; playgroundUrl: string; traceUrl: string };
        expect(answer.playgroundUrl).toBe(`${base}/playground?sessionId=${answer.sessionId}`);
        expect(answer.traceUrl).toBe(`${base}/v1/session/${answer.sessionId}/events`);
        const forked = await eventsOf(answer.sessionId);
        expect(forked.slice(0, firstEnd + 1).map(({ index, type, at, turnId, data }) => ({ index, type, at, turnId, data }))).toEqual(
          before.slice(0, firstEnd + 1).map(({ index, type, at, turnId, data }) => ({ index, type, at, turnId, data })),
        );
        expect(forked.slice(firstEnd + 1).map((event) => [event.type, event.data])).toEqual([
          ["session.forked", { sourceSessionId: source, atIndex: firstEnd }],
          ["session.waiting", {}],
        ]);
        expect(await conversationOf(storage, answer.sessionId)).toEqual(sourceConversation.slice(0, 4));

        // Inside the first turn, after the tool call was asked for: back to the user's message, the turn closed.
        const asked = before.find((event) => event.type === "actions.requested")!.index;
        const cut = (await (await post(`/v1/session/${source}/fork`, { atIndex: asked })).json()) as { sessionId: string };
        const cutEvents = await eventsOf(cut.sessionId);
        expect(cutEvents.slice(asked + 1).map((event) => event.type)).toEqual(["turn.failed", "session.forked", "session.waiting"]);
        expect(await conversationOf(storage, cut.sessionId)).toEqual(sourceConversation.slice(0, 1));

        // With a message: the fork answers it from its own history; the source is unchanged.
        const continued = (await (await post(`/v1/session/${source}/fork`, { atIndex: firstEnd, message: "/reply on the branch" })).json()) as { sessionId: string; continuationToken: string };
        const branch = await settled(continued.sessionId, 2);
        expect(branch.findLast((event) => event.type === "message.completed")?.data["text"]).toBe("on the branch");
        expect((await conversationOf(storage, continued.sessionId)).map((message) => message.role)).toEqual(["user", "assistant", "tool", "assistant", "user", "assistant"]);
        expect(await eventsOf(source)).toEqual(before);
        const listed = (await (await fetch(`${base}/v1/sessions`)).json()) as { sessions: Array<{ sessionId: string; turnCount: number }> };
        expect(listed.sessions.find((session) => session.sessionId === answer.sessionId)?.turnCount).toBe(1);

        // Bad input changes nothing.
        const count = listed.sessions.length;
        for (const body of [{}, { atIndex: -1 }, { atIndex: 1.5 }, { atIndex: "3" }, { atIndex: 0, extra: true }, { atIndex: 0, message: "" }]) {
          expect((await post(`/v1/session/${source}/fork`, body)).status, JSON.stringify(body)).toBe(400);
        }
        expect((await post(`/v1/session/${source}/fork`, { atIndex: before.length })).status).toBe(400);
        expect((await post(`/v1/session/ses_missing/fork`, { atIndex: 0 })).status).toBe(404);
        expect(((await (await fetch(`${base}/v1/sessions`)).json()) as { sessions: unknown[] }).sessions).toHaveLength(count);
      } finally {
        await served.close();
      }
    });
  });
}

describe("who may fork", () => {
  it("only the source's owner", async () => {
    const served = await serve(
      helloOptions({
        auth: { policies: [bearerAuth((token) => (token === "key-a" || token === "key-b" ? { authenticator: "test", principalId: token, principalType: "user" } : null))] },
      }),
    );
    try {
      const as = (key: string) => ({ "content-type": "application/json", authorization: `Bearer ${key}` });
      const created = (await (await fetch(`${served.url}/hello/v1/session`, { method: "POST", headers: as("key-a"), body: JSON.stringify({ message: "/reply mine" }) })).json()) as { sessionId: string };
      await new Promise((resolve) => setTimeout(resolve, 100));
      const bob = await fetch(`${served.url}/hello/v1/session/${created.sessionId}/fork`, { method: "POST", headers: as("key-b"), body: JSON.stringify({ atIndex: 0 }) });
      expect(bob.status).toBe(403);
      const alice = await fetch(`${served.url}/hello/v1/session/${created.sessionId}/fork`, { method: "POST", headers: as("key-a"), body: JSON.stringify({ atIndex: 0 }) });
      expect(alice.status).toBe(200);
    } finally {
      await served.close();
    }
  });
});
