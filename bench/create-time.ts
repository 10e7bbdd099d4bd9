/**
 * Server time of a c=1 turn's two requests, without the HTTP layer or any tracing: the create
 * (`POST /v1/session`, its durable commit included) from `host.request` called (the in-process
 * entry: a loopback `Request` handed to `host.fetch`) to the response resolved, and the stream
 * (`GET .../stream`) from `host.request` called to its first body chunk.
 * One turn at a time, each read to `session.waiting` before the next create, in this process.
 *
 *   npx node bench/create-time.ts [--turns=2000] [--rounds=4] [--stores=memory,sqlite,sqlite-thread]
 *
 * `sqlite` is the default driver (WAL, `synchronous=FULL`, lone commits inline); `sqlite-thread`
 * sends every commit to the writer thread (`inlineCommits: false`). Stores alternate round by
 * round (the order reversed every other round), each on a fresh host and file after 200 warm-up
 * turns; medians over rounds of each round's p50 and p90.
 * @module
 */
import { join } from "node:path";
import { createSqliteStorage } from "../drivers/sqlite/index.ts";
import { createMemoryStorage } from "../src/base/storage/memory.ts";
import { createHost } from "../src/index.ts";
import { fmt, machineLine, median, option, percentile, printTable, readResponseToWaiting, scriptedProject, tempDir } from "./_util.ts";

const turns = option("turns", 2000);
const rounds = option("rounds", 4);
const STORES = ["memory", "sqlite", "sqlite-thread"] as const;
type Store = (typeof STORES)[number];
const stores = (process.argv.find((arg) => arg.startsWith("--stores="))?.slice("--stores=".length) ?? STORES.join(",")).split(",") as Store[];
if (stores.some((store) => !STORES.includes(store))) throw new Error(`create-time: --stores lists some of ${STORES.join(", ")}`);

interface Round {
  create: number[];
  firstChunk: number[];
}

async function measure(store: Store): Promise<Round> {
  const dir = store === "memory" ? undefined : await tempDir("create-time");
  const storage = dir ? createSqliteStorage({ path: join(dir.path, "state.db"), inlineCommits: store !== "sqlite-thread" }) : createMemoryStorage();
  const host = createHost({ agents: [{ slug: "bench", project: scriptedProject(), storage }] });
  await host.ready();
  const round: Round = { create: [], firstChunk: [] };
  try {
    for (let i = 0; i < 200 + turns; i++) {
      const posted = performance.now();
      const created = await host.request("/bench/v1/session", { method: "POST", headers: { "content-type": "application/json" }, body: '{"message":"hi"}' });
      const answered = performance.now();
      const { sessionId } = (await created.json()) as { sessionId: string };
      const opened = performance.now();
      const stream = await host.request(`/bench/v1/session/${sessionId}/stream`);
      await readResponseToWaiting(stream, () => {
        if (i >= 200) round.firstChunk.push(performance.now() - opened);
      });
      if (i >= 200) round.create.push(answered - posted);
    }
  } finally {
    await host.close();
    await dir?.cleanup();
  }
  return round;
}

console.log(`create-time: ${turns} turns per round, ${rounds} rounds; ${machineLine()}`);
const results = new Map<Store, Round[]>(stores.map((store) => [store, []]));
for (let r = 0; r < rounds; r++) {
  const order = r % 2 === 0 ? stores : [...stores].reverse();
  for (const store of order) {
    const round = await measure(store);
    results.get(store)!.push(round);
    const sorted = (values: number[]) => [...values].sort((a, b) => a - b);
    console.log(`  round ${r + 1}, ${store}: create p50 ${fmt(percentile(sorted(round.create), 50))} ms, stream first chunk p50 ${fmt(percentile(sorted(round.firstChunk), 50))} ms`);
  }
}
const summary = (rs: Round[], pick: (round: Round) => number[], p: number) => fmt(median(rs.map((round) => percentile([...pick(round)].sort((a, b) => a - b), p))));
printTable(
  ["store", "create p50 ms", "create p90 ms", "stream first chunk p50 ms", "stream first chunk p90 ms"],
  stores.map((store) => {
    const rs = results.get(store)!;
    return [store, summary(rs, (r) => r.create, 50), summary(rs, (r) => r.create, 90), summary(rs, (r) => r.firstChunk, 50), summary(rs, (r) => r.firstChunk, 90)];
  }),
);
