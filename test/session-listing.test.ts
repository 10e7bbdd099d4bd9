/**
 * `GET /v1/sessions` a page at a time (docs/design/listing.md): order, cursors across creates,
 * owners, bad parameters, `GET /v1/session/:id`, and sessions stored before the index existed.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { bearerAuth } from "../src/entries/channels.ts";
import type { AuthContext } from "../src/base/auth.ts";
import type { SessionRecord, SessionSummary } from "../src/base/definitions/sessions.ts";
import { StorageUnavailableError } from "../src/base/storage/errors.ts";
import { createMemoryStorage } from "../src/base/storage/memory.ts";
import { SESSION_INDEX_READY_KEY, sessionRecordKey } from "../src/base/storage/keys.ts";
import type { StorageDriver } from "../src/base/storage/types.ts";
import { SessionIndex } from "../src/engine/sessions/session-index.ts";
import { SessionStore } from "../src/engine/sessions/session-store.ts";
import { createHost } from "../src/host/host.ts";
import { createSqliteStorage } from "../drivers/sqlite/index.ts";
import { describeHost, eventually, helloOptions, postJson, project, quietLogger } from "./_harness.ts";

const base = "/hello";
const principals: Record<string, AuthContext> = {
  alice: { authenticator: "test", principalId: "alice", principalType: "user" },
  bob: { authenticator: "test", principalId: "bob", principalType: "user" },
};
const as = (who: string): Record<string, string> => ({ authorization: `Bearer ${who}` });
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

interface Listed {
  sessions: SessionSummary[];
  nextCursor: string | null;
}

for (const store of ["memory", "sqlite"] as const) {
  const storage = (): StorageDriver => {
    if (store === "memory") return createMemoryStorage();
    const dir = mkdtempSync(join(tmpdir(), "as-listing-"));
    dirs.push(dir);
    return createSqliteStorage({ path: join(dir, "state.db") });
  };
  describeHost(
    `session listing (${store})`,
    () =>
      helloOptions({
        agents: [{ slug: "hello", project: project({ agent: {} }), storage: storage() }],
        auth: { policies: [bearerAuth((token) => principals[token] ?? null)] },
      }),
    (target) => {
      const create = async (who: string, message = "hi"): Promise<string> => {
        const response = await target().fetch(`${base}/v1/session`, postJson({ message }, as(who)));
        expect(response.status).toBe(200);
        return ((await response.json()) as { sessionId: string }).sessionId;
      };
      const list = async (who: string, query = ""): Promise<Listed> => {
        const response = await target().fetch(`${base}/v1/sessions${query}`, { headers: as(who) });
        expect(response.status).toBe(200);
        return (await response.json()) as Listed;
      };
      /** Every page, following cursors; `between` runs after each page. */
      const walk = async (who: string, limit: number, between?: () => Promise<void>): Promise<SessionSummary[][]> => {
        const pages: SessionSummary[][] = [];
        let cursor: string | null = null;
        do {
          const page = await list(who, `?limit=${limit}${cursor === null ? "" : `&cursor=${cursor}`}`);
          expect(page.sessions.length).toBeLessThanOrEqual(limit);
          pages.push(page.sessions);
          cursor = page.nextCursor;
          await between?.();
        } while (cursor !== null && pages.length < 100);
        return pages;
      };
      const settled = (who: string, count: number): Promise<SessionSummary[]> =>
        eventually(async () => {
          const all = (await walk(who, 500)).flat();
          return all.length === count && all.every((s) => s.status === "idle") ? all : undefined;
        }, 15_000, `${count} idle sessions`);

      it("pages newest-updated first with no repeat or gap while sessions are created, each owner its own", async () => {
        const mine: string[] = [];
        for (let i = 0; i < 11; i++) mine.push(await create("alice", `m${i}`));
        const bobs = [await create("bob"), await create("bob")];
        const before = await settled("alice", 11);
        await settled("bob", 2);
        expect(before.map((s) => s.updatedAt)).toEqual(before.map((s) => s.updatedAt).sort().reverse());
        expect(new Set(before.map((s) => s.sessionId))).toEqual(new Set(mine));

        // Sessions created during the walk land before its cursor: the walk sees each earlier one once.
        const created: string[] = [];
        const pages = await walk("alice", 3, async () => {
          created.push(await create("alice", "late"));
        });
        const walked = pages.flat().map((s) => s.sessionId);
        expect(pages.slice(0, -1).every((page) => page.length === 3)).toBe(true);
        expect(walked.filter((id) => !created.includes(id))).toEqual(before.map((s) => s.sessionId));
        expect(new Set(walked).size).toBe(walked.length);
        expect(walked.some((id) => bobs.includes(id))).toBe(false);

        const fresh = await list("alice", "?limit=2");
        expect(created).toContain(fresh.sessions[0]!.sessionId);
        expect(fresh.nextCursor).toEqual(expect.any(String));
        expect((await list("bob")).sessions.map((s) => s.sessionId).sort()).toEqual([...bobs].sort());
      });

      it("moves a session to the top when it changes, and drops it when removed", async () => {
        const ids = [await create("alice"), await create("alice"), await create("alice")];
        const listed = await settled("alice", 3);
        // Their turns finished in any order: the listing's order is the order of their last update.
        const [c, b, a] = listed.map((s) => s.sessionId) as [string, string, string];
        expect(new Set([a, b, c])).toEqual(new Set(ids));
        // A change in a later millisecond than every listed one: it sorts first, never in a tie.
        const newest = Date.parse(listed[0]!.updatedAt);
        await eventually(async () => (Date.now() > newest + 1 ? true : undefined));
        const rename = await target().fetch(`${base}/v1/session/${a}`, { method: "PATCH", headers: { ...as("alice"), "content-type": "application/json" }, body: JSON.stringify({ title: "renamed" }) });
        expect(rename.status).toBe(200);
        const after = (await list("alice")).sessions;
        expect(after.map((s) => s.sessionId)).toEqual([a, c, b]);
        expect(after[0]!.title).toBe("renamed");
        expect((await target().fetch(`${base}/v1/session/${c}`, { method: "DELETE", headers: as("alice") })).status).toBe(200);
        expect((await list("alice")).sessions.map((s) => s.sessionId)).toEqual([a, b]);
      });

      it("answers one session's summary at GET /v1/session/:id, to its owner only", async () => {
        const id = await create("alice");
        const [listed] = await settled("alice", 1);
        const response = await target().fetch(`${base}/v1/session/${id}`, { headers: as("alice") });
        expect(response.status).toBe(200);
        expect(await response.json()).toEqual({ session: listed });
        expect((await target().fetch(`${base}/v1/session/${id}`, { headers: as("bob") })).status).toBe(403);
        expect((await target().fetch(`${base}/v1/session/ses_nothere`, { headers: as("alice") })).status).toBe(404);
      });

      it("refuses a bad limit or cursor with 400 in the error envelope, and serves a large limit as the largest page", async () => {
        await create("alice");
        const page = await list("alice", "?limit=1");
        expect(page.nextCursor).toBeNull();
        for (const query of ["?limit=0", "?limit=-1", "?limit=abc", "?limit=1.5", "?limit=", "?cursor=", "?cursor=%%%", "?cursor=bm90LWEtY3Vyc29y", "?cursor=AAAA"]) {
          const response = await target().fetch(`${base}/v1/sessions${query}`, { headers: as("alice") });
          expect(response.status, query).toBe(400);
          const body = (await response.json()) as Record<string, unknown>;
          expect(body, query).toMatchObject({ ok: false, error: "invalid_request", message: expect.stringMatching(/limit|cursor/) });
        }
        expect((await list("alice", "?limit=100000")).sessions).toHaveLength(1);
      });
    },
  );
}

describe("sessions stored before the index", () => {
  const record = (sessionId: string, updatedAt: string, principalId = "local"): SessionRecord => ({
    sessionId,
    channel: "http",
    mode: "chat",
    owner: { authenticator: "none", principalId, principalType: "anonymous" },
    continuationToken: `http:${sessionId}`,
    status: "idle",
    turnCount: 1,
    createdAt: updatedAt,
    updatedAt,
  });

  it("are indexed on the first listing and listed in order with the new ones", async () => {
    const storage = createMemoryStorage();
    const old = Array.from({ length: 7 }, (_, i) => record(`ses_old${i}`, new Date(Date.UTC(2025, 0, 1 + i)).toISOString()));
    // Written as an older version wrote them: the record alone.
    for (const r of old) await storage.set(sessionRecordKey(r.sessionId), JSON.stringify(r));
    await storage.set(sessionRecordKey("ses_torn"), "{not json");
    const host = createHost({ agents: [{ slug: "hello", project: project(), storage }], logger: quietLogger, drainTimeoutMs: 50, dev: true });
    const loopback = { ip: "127.0.0.1" };
    try {
      const created = ((await (await host.request(`${base}/v1/session`, postJson({ message: "new" }), loopback)).json()) as { sessionId: string }).sessionId;
      const ids: string[] = [];
      let cursor: string | null = null;
      do {
        const body = (await (await host.request(`${base}/v1/sessions?limit=3${cursor ? `&cursor=${cursor}` : ""}`, undefined, loopback)).json()) as Listed;
        ids.push(...body.sessions.map((s) => s.sessionId));
        cursor = body.nextCursor;
      } while (cursor);
      expect(ids).toEqual([created, ...old.map((r) => r.sessionId).reverse()]);
      expect(await storage.get(SESSION_INDEX_READY_KEY)).toEqual(expect.any(String));
    } finally {
      await host.close();
    }
  });

  it("are listed from their records, page by page, while the store takes no writes, and indexed once it does", async () => {
    const inner = createMemoryStorage();
    let full = true;
    const refuse = (): Promise<never> => Promise.reject(new StorageUnavailableError("[test] the store is full"));
    const storage: StorageDriver = {
      ...inner,
      commit: (batch) => (full ? refuse() : inner.commit(batch)),
      set: (key, value) => (full ? refuse() : inner.set(key, value)),
    };
    const old = Array.from({ length: 5 }, (_, i) => record(`ses_full${i}`, new Date(Date.UTC(2025, 1, 1 + i)).toISOString()));
    for (const r of old) await inner.set(sessionRecordKey(r.sessionId), JSON.stringify(r));
    const index = new SessionIndex(storage, () => new SessionStore(storage, Date.now).list());
    const first = await index.page(undefined, 2);
    const second = await index.page(undefined, 2, first.next);
    const third = await index.page(undefined, 2, second.next);
    expect([first, second, third].flatMap((page) => page.sessions.map((s) => s.sessionId))).toEqual(old.map((r) => r.sessionId).reverse());
    expect(third.next).toBeUndefined();
    expect(await inner.get(SESSION_INDEX_READY_KEY)).toBeUndefined();
    full = false;
    expect((await index.page("local", 10)).sessions).toHaveLength(5);
    expect(await inner.get(SESSION_INDEX_READY_KEY)).toEqual(expect.any(String));
    expect(await inner.list("session-index/all/")).toHaveLength(5);
  });

  it("corrects what it wrote for a session that changed or went away while it was indexing", async () => {
    const storage = createMemoryStorage();
    const store = new SessionStore(storage, Date.now);
    const rs = ["ses_a", "ses_b", "ses_c"].map((id, i) => record(id, new Date(Date.UTC(2025, 0, 1 + i)).toISOString()));
    for (const r of rs) await storage.set(sessionRecordKey(r.sessionId), JSON.stringify(r));
    let reads = 0;
    const index = new SessionIndex(storage, async () => {
      const records = await store.list();
      // Between the backfill's read and its writes: one session changes, one is removed.
      if (reads++ === 0) {
        await store.update("ses_a", (r) => (r.title = "changed"));
        await store.remove(rs[1]!, [], []);
      }
      return records;
    });
    const page = await index.page(undefined, 10);
    expect(page.sessions.map((s) => [s.sessionId, s.title])).toEqual([
      ["ses_a", "changed"],
      ["ses_c", null],
    ]);
    expect((await storage.list("session-index/all/")).length).toBe(2);
    expect((await index.page("local", 10)).sessions.map((s) => s.sessionId)).toEqual(["ses_a", "ses_c"]);
  });
});
