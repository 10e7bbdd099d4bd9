/**
 * Listing at any size (docs/design/listing.md): `GET /v1/sessions` pages over 100,000 stored
 * sessions against the old full listing (every record read, parsed, sorted and sent), both served
 * over loopback from the same store and driven by the client process at one connection.
 *
 *   npx node bench/listing.ts [--sessions=100000] [--rounds=3] [--seconds=2]
 *
 * Subjects, alternated round by round on one sqlite store (synchronous=FULL, the default):
 * - `page 1`: `GET /v1/sessions` (the first 50, newest first);
 * - `deep page`: `GET /v1/sessions?cursor=…` from a cursor 90% down the list;
 * - `page of 500`: `?limit=500`;
 * - `full listing (old)`: the listing as it was, `SessionReads.list` over the same store.
 * Then once: the first listing of a store written without the index (the one-time indexing of
 * older sessions) and the memory store's page 1.
 * @module
 */
import { createSqliteStorage } from "../drivers/sqlite/index.ts";
import type { SessionRecord } from "../src/base/definitions/sessions.ts";
import { createMemoryStorage } from "../src/base/storage/memory.ts";
import { sessionRecordKey } from "../src/base/storage/keys.ts";
import type { StorageDriver } from "../src/base/storage/types.ts";
import { indexWrites } from "../src/engine/sessions/session-index.ts";
import { SessionReads } from "../src/engine/sessions/session-reads.ts";
import { SessionStore } from "../src/engine/sessions/session-store.ts";
import { createHost } from "../src/host/host.ts";
import { serveNode } from "../adapters/node.ts";
import { json } from "../src/base/responses.ts";
import { alternate, fmt, machineLine, median, option, printTable, runClient, scriptedProject, serveLoopback, tempDir } from "./_util.ts";

const count = option("sessions", 100_000);
const rounds = option("rounds", 3);
const seconds = option("seconds", 2);
const quiet = { info() {}, warn() {}, error() {} };

interface LoadResult {
  requests: number;
  errors: number;
  p50: number;
  p99: number;
}

console.log(`listing: ${count.toLocaleString("en-US")} stored sessions, ${rounds} rounds of ${seconds} s per subject at 1 connection; ${machineLine()}`);
const dir = await tempDir("listing");
try {
  const storage = createSqliteStorage({ path: `${dir.path}/state.db` });
  const begin = performance.now();
  await writeSessions(storage, count, true);
  console.log(`  wrote ${count.toLocaleString("en-US")} sessions with their index entries in ${fmt((performance.now() - begin) / 1000)} s`);

  const host = createHost({ agents: [{ slug: "bench", project: scriptedProject(), storage }], mode: "single", logger: quiet });
  const served = await serveNode(host, { port: 0, hostname: "127.0.0.1", silent: true });
  // The old route's work, on the same store: every record read, filtered, sorted and serialized.
  const reads = new SessionReads(new SessionStore(storage, Date.now), { isBusy: () => false, isQueued: () => false });
  const old = await serveLoopback(async () => json({ sessions: await reads.list({ auth: { authenticator: "localDevStrict", principalId: "local", principalType: "local" }, wide: false }) }));
  try {
    const deep = await cursorAt(served.url, Math.floor(count * 0.9));
    const urls = {
      "page 1": `${served.url}/v1/sessions`,
      "deep page": `${served.url}/v1/sessions?cursor=${deep}`,
      "page of 500": `${served.url}/v1/sessions?limit=500`,
      "full listing (old)": old.url,
    } as const;
    for (const [name, url] of Object.entries(urls)) {
      const response = await fetch(url);
      const body = (await response.json()) as { sessions: unknown[] };
      console.log(`  ${name}: ${response.status}, ${body.sessions.length.toLocaleString("en-US")} sessions, ${JSON.stringify(body).length.toLocaleString("en-US")} bytes`);
    }
    const subjects = Object.keys(urls) as Array<keyof typeof urls>;
    const results = await alternate(
      subjects,
      rounds,
      // The full listing takes seconds per request at this size, and a 27 MB body: three
      // downloads streamed by the client, rather than the closed loop that buffers each response.
      (subject) => (subject === "full listing (old)" ? fullListing(urls[subject]) : runClient<LoadResult>(["requests", urls[subject], 1, seconds, 0.5])),
      (subject, round, r) => console.log(`  round ${round + 1} ${subject}: ${r.requests} requests, p50 ${fmt(r.p50)} ms, p99 ${fmt(r.p99)} ms${r.errors ? `, ${r.errors} errors` : ""}`),
    );
    const baseline = median(results["full listing (old)"].map((r) => r.p50));
    printTable(
      ["subject (sqlite, synchronous=FULL)", "p50 ms", "p99 ms", "p50 vs full listing"],
      subjects.map((subject) => {
        const p50 = median(results[subject].map((r) => r.p50));
        return [subject, fmt(p50), fmt(median(results[subject].map((r) => r.p99))), `${fmt(p50 / baseline, 2)}×`];
      }),
    );
  } finally {
    await served.close(true);
    await old.close();
    await host.close();
  }

  // The first listing of a store whose sessions were written before the index: indexes them once.
  const older = createSqliteStorage({ path: `${dir.path}/older.db` });
  await writeSessions(older, count, false);
  const upgraded = createHost({ agents: [{ slug: "bench", project: scriptedProject(), storage: older }], mode: "single", logger: quiet });
  const times: number[] = [];
  for (let i = 0; i < 11; i++) {
    const start = performance.now();
    const response = await upgraded.request("/v1/sessions", undefined, { ip: "127.0.0.1" });
    if (response.status !== 200) throw new Error(`listing: ${response.status}`);
    await response.text();
    times.push(performance.now() - start);
  }
  await upgraded.close();

  const memory = createMemoryStorage();
  await writeSessions(memory, count, true);
  const inMemory = createHost({ agents: [{ slug: "bench", project: scriptedProject(), storage: memory }], mode: "single", logger: quiet });
  const memoryTimes: number[] = [];
  for (let i = 0; i < 200; i++) {
    const start = performance.now();
    await (await inMemory.request("/v1/sessions", undefined, { ip: "127.0.0.1" })).text();
    memoryTimes.push(performance.now() - start);
  }
  await inMemory.close();
  printTable(
    ["in process (host.request)", "ms"],
    [
      ["first listing of an upgraded sqlite store (indexes the older sessions)", fmt(times[0]!)],
      ["the listings after it (page 1, median of 10)", fmt(median(times.slice(1)))],
      ["memory store, page 1 (median of 200)", fmt(median(memoryTimes))],
    ],
  );
} finally {
  await dir.cleanup();
}

// --- internals ---

/** Idle sessions owned by the loopback principal, one second apart, written in commits of 1,000. */
async function writeSessions(storage: StorageDriver, total: number, indexed: boolean): Promise<void> {
  const start = Date.parse("2026-01-01T09:00:00.000Z");
  for (let from = 0; from < total; from += 1000) {
    const records = [];
    for (let n = from; n < Math.min(total, from + 1000); n++) {
      const at = new Date(start + n * 1000).toISOString();
      const record: SessionRecord = {
        sessionId: `ses_bench${String(n).padStart(11, "0")}`,
        channel: "http",
        mode: "chat",
        owner: { authenticator: "localDevStrict", principalId: "local", principalType: "local" },
        continuationToken: `http:bench${String(n).padStart(27, "0")}`,
        status: "idle",
        turnCount: 1,
        createdAt: at,
        updatedAt: at,
        title: `session ${n}`,
      };
      records.push({ key: sessionRecordKey(record.sessionId), value: JSON.stringify(record) }, ...(indexed ? indexWrites(record, null) : []));
    }
    await storage.commit({ records });
  }
}

/** Three downloads of the old full listing, one at a time: their latencies as a load result. */
async function fullListing(url: string): Promise<LoadResult> {
  const times: number[] = [];
  let errors = 0;
  for (let i = 0; i < 3; i++) {
    const r = await runClient<{ status: number; ms: number }>(["download", url]);
    if (r.status !== 200) errors++;
    times.push(r.ms);
  }
  times.sort((a, b) => a - b);
  return { requests: times.length, errors, p50: median(times), p99: times.at(-1)! };
}

/** The cursor after the first `skip` sessions, by walking pages of 500. */
async function cursorAt(base: string, skip: number): Promise<string> {
  let cursor: string | null = null;
  for (let seen = 0; seen < skip; seen += 500) {
    const page = (await (await fetch(`${base}/v1/sessions?limit=500${cursor ? `&cursor=${cursor}` : ""}`)).json()) as { nextCursor: string | null };
    if (!page.nextCursor) break;
    cursor = page.nextCursor;
  }
  if (!cursor) throw new Error("listing: no deep cursor");
  return cursor;
}
