/**
 * `agent-serve serve --storage postgres://…` as a real process (docs/guide/storage.md): the shared
 * store suite (test/_serve-storage-suite.ts) on Postgres, and a database crash during turns.
 */
import { join } from "node:path";
import { expect, test } from "vitest";
import { finished, startServe } from "./_cli.ts";
import { eventually, fetchEvents, readEvents } from "./_harness.ts";
import { POSTGRES_BIN, POSTGRES_MISSING, startPostgresServer } from "./_postgres-server.ts";
import { json, serveStorageSuite } from "./_serve-storage-suite.ts";

serveStorageSuite({
  name: "Postgres",
  installed: POSTGRES_BIN !== undefined,
  missing: POSTGRES_MISSING,
  // Synced as in production: the crash below must keep every acknowledged write.
  startServer: () => startPostgresServer({ fsync: true }),
  startTimeoutMs: 60_000,
  storage: (url, namespace) => `${url}?namespace=${namespace}`,
  more({ server, scratch, env, running }) {
    test("a database crash during turns loses no event a stream has shown, and every session comes to rest", async () => {
      const storage = `${server().url}?namespace=crash`;
      const host = await startServe(["examples/hello", "--port", "0", "--state-root", join(scratch, "crash"), "--storage", storage], env);
      running.push(host);
      const base = `${host.url}/hello`;
      const ids: string[] = [];
      for (let i = 0; i < 4; i++) {
        const created = await fetch(`${base}/v1/session`, json({ message: `/sleep 1500\nturn ${i}` }));
        expect(created.status).toBe(200);
        ids.push(((await created.json()) as { sessionId: string }).sessionId);
      }
      // What each stream has shown before the crash: acknowledged, so it must all be there after.
      const shown = await Promise.all(ids.map(async (id) => readEvents(await fetch(`${base}/v1/session/${id}/stream`), (event) => event.type === "step.started", 10_000)));
      await server().crash();
      await server().start();
      let last = "";
      const rested = await eventually(async () => {
        const response = await fetch(`${base}/v1/sessions`).catch(() => undefined);
        if (response?.status !== 200) return undefined;
        const rows = ((await response.json()) as { sessions: Array<{ sessionId: string; status: string }> }).sessions.filter((row) => ids.includes(row.sessionId));
        last = JSON.stringify(rows.map((row) => row.status));
        return rows.length === ids.length && rows.every((row) => row.status !== "running" && row.status !== "queued") ? rows : undefined;
      }, 30_000, "every session at rest after the crash").catch((error: unknown) => {
        throw new Error(`${String(error)}: ${last}\n${host.stderr()}`);
      });
      expect(rested).toHaveLength(ids.length);
      for (const [i, id] of ids.entries()) {
        const all = await fetchEvents(base, id);
        expect(all.slice(0, shown[i]!.length)).toEqual(shown[i]);
        expect(all.map((event) => event.index)).toEqual(all.map((_, k) => k));
        expect(["session.waiting", "session.failed"]).toContain(all.at(-1)?.type);
      }
      host.child.kill("SIGTERM");
      expect((await finished(host)).code).toBe(0);
    }, 120_000);
  },
});
