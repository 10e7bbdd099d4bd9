/**
 * `agent-serve storage migrate` (docs/guide/storage.md, "Moving from sqlite"): sessions made by a
 * real `serve` on sqlite (with follow-ups, and an approval decided) are copied to Postgres; a
 * `serve` on Postgres then replays every session's stream exactly, takes follow-ups, and the copy
 * back to a new sqlite file matches record for record. A target that holds sessions is refused.
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createPostgresStorage } from "../drivers/postgres/index.ts";
import { createRedisStorage } from "../drivers/redis/index.ts";
import { createSqliteStorage } from "../drivers/sqlite/index.ts";
import { cliEnv, finished, killAfterEach, startServe } from "./_cli.ts";
import type { CliProcess } from "./_cli.ts";
import { run, writeFiles } from "./_cli-io.ts";
import { fetchEvents, readEvents, type TestEvent } from "./_harness.ts";
import { type PostgresServer, POSTGRES_BIN, POSTGRES_MISSING, startPostgresServer } from "./_postgres-server.ts";
import { REDIS_MISSING, REDIS_SERVER, startRedisServer } from "./_redis-server.ts";
import { readAll } from "./_storage-tests.ts";

const scratch = mkdtempSync(join(tmpdir(), "agent-serve-storage-migrate-"));
const env = cliEnv(join(scratch, "config"));
const running: CliProcess[] = killAfterEach();
const project = writeFiles(join(scratch, "project"), {
  "bot/agent.ts": `import { defineAgent } from "agent-serve";\nexport default defineAgent({ name: "Mover" });\n`,
  "bot/instructions.md": "You move.\n",
  "bot/tools/danger.ts": `export default { description: "Deletes things", needsApproval: true, execute: (input) => "deleted " + input.what };\n`,
});

const json = (body: unknown): RequestInit => ({ method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
const waiting = (count: number) => (_: TestEvent, all: TestEvent[]) => all.filter((event) => event.type === "session.waiting").length === count;

describe.skipIf(!POSTGRES_BIN)(`storage migrate between sqlite, Postgres and Redis${POSTGRES_MISSING}`, () => {
  let server: PostgresServer;
  beforeAll(async () => {
    server = await startPostgresServer();
  }, 60_000);
  afterAll(async () => {
    await server?.close();
    rmSync(scratch, { recursive: true, force: true });
  });

  test("every session replays the same from the target, which then serves on", async () => {
    const sqlitePath = join(scratch, "source", "state.db");
    const serve = (storage: string, root: string) => startServe([project, "--port", "0", "--state-root", join(scratch, root), "--storage", storage, "--mode", "single"], env);

    const source = await serve(`sqlite:${sqlitePath}`, "state-source");
    running.push(source);
    const sessions: Array<{ sessionId: string; continuationToken: string }> = [];
    for (let i = 0; i < 3; i++) {
      const created = await fetch(`${source.url}/v1/session`, json({ message: `hello ${i}` }));
      expect(created.status).toBe(200);
      const session = (await created.json()) as { sessionId: string; continuationToken: string };
      await readEvents(await fetch(`${source.url}/v1/session/${session.sessionId}/stream`), waiting(1), 10_000);
      const followed = await fetch(`${source.url}/v1/session/${session.sessionId}`, json({ continuationToken: session.continuationToken, message: `again ${i}` }));
      expect(followed.status).toBe(200);
      await readEvents(await fetch(`${source.url}/v1/session/${session.sessionId}/stream`), waiting(2), 10_000);
      sessions.push(session);
    }
    // One with a call that was parked and approved: its decisions log is copied too.
    const parked = (await (await fetch(`${source.url}/v1/session`, json({ message: `/tool danger {"what":"prod"}\n/reply all clean` }))).json()) as { sessionId: string };
    const requested = await readEvents(await fetch(`${source.url}/v1/session/${parked.sessionId}/stream`), (event) => event.type === "action.approval_requested", 10_000);
    const callId = requested.at(-1)!.data["callId"] as string;
    expect((await fetch(`${source.url}/v1/session/${parked.sessionId}/approvals/${callId}`, json({ decision: "approve" }))).status).toBe(200);
    await readEvents(await fetch(`${source.url}/v1/session/${parked.sessionId}/stream`), waiting(1), 10_000);
    const ids = [...sessions.map((s) => s.sessionId), parked.sessionId];
    const before = new Map<string, TestEvent[]>();
    for (const id of ids) before.set(id, await fetchEvents(source.url, id));
    source.child.kill("SIGTERM");
    expect((await finished(source)).code).toBe(0);
    expect(existsSync(sqlitePath)).toBe(true);

    const target = `${server.url}?namespace=moved`;
    const copied = await run(["storage", "migrate", "--from", `sqlite:${sqlitePath}`, "--to", target, "--json"], { env, cwd: scratch });
    expect(copied.code, copied.stderr).toBe(0);
    const report = JSON.parse(copied.stdout) as { ok: boolean; sessions: number; logs: number; lines: number; records: number };
    expect(report).toMatchObject({ ok: true, sessions: 4 });
    // Events and conversation of each session, and the approved call's decisions.
    expect(report.logs).toBe(4 * 2 + 1);

    // A second copy into the same target is refused before anything is written.
    const again = await run(["storage", "migrate", "--from", `sqlite:${sqlitePath}`, "--to", target], { env, cwd: scratch });
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/already holds sessions/);

    const moved = await serve(target, "state-target");
    running.push(moved);
    for (const id of ids) {
      expect(await fetchEvents(moved.url, id)).toEqual(before.get(id));
      const replayed = await readEvents(await fetch(`${moved.url}/v1/session/${id}/stream?startIndex=0`), (_, all) => all.length === before.get(id)!.length, 10_000);
      expect(replayed).toEqual(before.get(id));
    }
    const listed = ((await (await fetch(`${moved.url}/v1/sessions`)).json()) as { sessions: Array<{ sessionId: string; status: string; continuationToken: string }> }).sessions;
    expect(listed.map((row) => row.sessionId).sort()).toEqual([...ids].sort());
    expect(new Set(listed.map((row) => row.status))).toEqual(new Set(["idle"]));
    // The continuation tokens came along: the conversation goes on where it was.
    const first = sessions[0]!;
    const { continuationToken } = listed.find((row) => row.sessionId === first.sessionId)!;
    const next = await fetch(`${moved.url}/v1/session/${first.sessionId}`, json({ continuationToken, message: "after the move" }));
    expect(next.status).toBe(200);
    const after = await readEvents(await fetch(`${moved.url}/v1/session/${first.sessionId}/stream?startIndex=${before.get(first.sessionId)!.length}`), (event) => event.type === "session.waiting", 10_000);
    expect(after[0]?.index).toBe(before.get(first.sessionId)!.length);
    expect(after.filter((event) => event.type === "message.completed").at(-1)?.data["text"]).toBe("echo: after the move");
    moved.child.kill("SIGTERM");
    expect((await finished(moved)).code).toBe(0);

    // And back, into a new sqlite file: the same records, the same lines.
    const backPath = join(scratch, "back", "state.db");
    const back = await run(["storage", "migrate", "--from", target, "--to", `sqlite:${backPath}`], { env, cwd: scratch });
    expect(back.code, back.stderr).toBe(0);
    expect(back.stdout).toMatch(/^copied \d+ records and 4 sessions/);
    const a = createSqliteStorage({ path: sqlitePath });
    const b = createSqliteStorage({ path: backPath });
    try {
      const [fromEntries, backEntries] = await Promise.all([a.entries("sessions/"), b.entries("sessions/")]);
      expect(backEntries.length).toBeGreaterThan(0);
      // The first session moved on after the copy; every other record is as it was.
      const changed = (entries: Array<[string, string]>) => entries.filter(([key]) => !key.startsWith(`sessions/${first.sessionId}/`));
      expect(changed(backEntries)).toEqual(changed(fromEntries));
      const log = `sessions/${ids[1]}/events`;
      expect((await readAll(b.read(log))).lines).toEqual((await readAll(a.read(log))).lines);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  }, 120_000);

  test.skipIf(!REDIS_SERVER)(`Postgres to Redis: the same records and lines${REDIS_MISSING}`, async () => {
    const source = createPostgresStorage({ url: server.url, namespace: "to-redis" });
    const redis = await startRedisServer();
    try {
      const lines = Array.from({ length: 2_500 }, (_, i) => JSON.stringify({ type: "message.appended", index: i, data: { delta: `ünï ${i}` } }));
      await source.commit({
        records: [
          { key: "sessions/s1/record", value: '{"sessionId":"s1"}' },
          { key: "kv/greeting", value: '"hi"' },
          { key: "turn-slots/bench", value: '{"running":["x"]}' },
        ],
        appends: [{ log: "sessions/s1/events", lines }, { log: "sessions/s1/conversation", lines: ["{}"] }],
      });
      const copied = await run(["storage", "migrate", "--from", `${server.url}?namespace=to-redis`, "--to", `${redis.url}/0?prefix=moved:`, "--json"], { env, cwd: scratch });
      expect(copied.code, copied.stderr).toBe(0);
      expect(JSON.parse(copied.stdout)).toMatchObject({ records: 2, sessions: 1, logs: 2, lines: 2_501 });
      const target = createRedisStorage({ url: redis.url, prefix: "moved:" });
      try {
        // The turn-slot record belongs to the processes running now: it stays behind.
        expect(await target.entries("")).toEqual([["kv/greeting", '"hi"'], ["sessions/s1/record", '{"sessionId":"s1"}']]);
        expect((await readAll(target.read("sessions/s1/events"))).lines).toEqual(lines);
      } finally {
        await target.close();
      }
    } finally {
      await source.close();
      await redis.close();
    }
  });

  test("refuses what it cannot copy from or to", async () => {
    for (const [argv, why] of [
      [["storage", "migrate", "--to", "sqlite:x.db"], /needs --from/],
      [["storage", "migrate", "--from", "memory:", "--to", "sqlite:x.db"], /keeps nothing/],
      [["storage", "migrate", "--from", "sqlite:", "--to", "sqlite:x.db"], /needs the file's path/],
      [["storage", "copy", "--from", "sqlite:a.db", "--to", "sqlite:x.db"], /unknown storage action/],
    ] as const) {
      const result = await run([...argv], { env, cwd: scratch });
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr).toMatch(why);
    }
  });
});
