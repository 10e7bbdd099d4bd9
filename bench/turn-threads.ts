/**
 * Where a c=1 turn's CPU goes, thread by thread: the event loop, the sqlite writer thread and V8's
 * helper threads (compiler, GC), each read from `/proc/self/task/<tid>/stat` (user and system
 * time) over the client's window. The turn is `bench/turns.ts`'s (create, then the stream read to
 * `session.waiting`, from a separate client process), run after a warm-up on a fresh host.
 *
 *   npx node bench/turn-threads.ts [--seconds=6] [--warm=3] [--rounds=3] [--stores=memory,sqlite,sqlite-inline,sqlite-thread]
 *
 * `sqlite-inline` is the sqlite driver without its writer thread (`writerThread: false`: every
 * commit on the event loop's own connection), `sqlite-thread` the driver sending every commit to
 * its thread (`inlineCommits: false`), for comparison. Linux only (`/proc`); the clock
 * tick is 10 ms, so each figure is a sum over thousands of turns.
 * @module
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { serveNode } from "../adapters/node.ts";
import { createSqliteStorage } from "../drivers/sqlite/index.ts";
import { createMemoryStorage } from "../src/base/storage/memory.ts";
import type { StorageDriver } from "../src/base/storage/types.ts";
import { createHost } from "../src/index.ts";
import { fmt, machineLine, median, option, printTable, runClient, scriptedProject, tempDir, type TurnsResult } from "./_util.ts";

const seconds = option("seconds", 6);
const warm = option("warm", 3);
const rounds = option("rounds", 3);
const stores = (process.argv.find((arg) => arg.startsWith("--stores="))?.slice("--stores=".length) ?? "memory,sqlite,sqlite-inline").split(",");
const TICK_MS = 10;

interface ThreadTimes {
  name: string;
  user: number;
  system: number;
}

/** Each thread's CPU so far, in clock ticks. */
function threads(): Map<string, ThreadTimes> {
  const out = new Map<string, ThreadTimes>();
  for (const tid of readdirSync("/proc/self/task")) {
    try {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, "utf8");
      const close = stat.lastIndexOf(")");
      const fields = stat.slice(close + 2).split(" ");
      // Fields 14 and 15 of stat(5): utime and stime, counted from the field after the name.
      out.set(tid, { name: stat.slice(stat.indexOf("(") + 1, close), user: Number(fields[11]), system: Number(fields[12]) });
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return out;
}

/** CPU ms per turn of the event loop, the writer thread and everything else, user and system. */
interface Split {
  loopUser: number;
  loopSystem: number;
  writer: number;
  helpers: number;
  total: number;
}

async function measure(store: string): Promise<Split> {
  const dir = await tempDir("turn-threads");
  const storage: StorageDriver =
    store === "memory" ? createMemoryStorage() : createSqliteStorage({ path: join(dir.path, "state.db"), writerThread: store !== "sqlite-inline", inlineCommits: store !== "sqlite-thread" });
  const host = createHost({ agents: [{ slug: "bench", project: scriptedProject(), storage }] });
  await host.ready();
  const server = await serveNode(host, { port: 0, hostname: "127.0.0.1", silent: true });
  try {
    await runClient<TurnsResult>(["turns", `${server.url}/bench`, 1, warm], () => {});
    let before = threads();
    let after = before;
    const result = await runClient<TurnsResult>(["turns", `${server.url}/bench`, 1, seconds], (mark) => {
      if (mark === "start") before = threads();
      else after = threads();
    });
    const loopTid = String(process.pid);
    const split: Split = { loopUser: 0, loopSystem: 0, writer: 0, helpers: 0, total: 0 };
    const others: number[] = [];
    for (const [tid, now] of after) {
      const then = before.get(tid) ?? { name: now.name, user: 0, system: 0 };
      const user = ((now.user - then.user) * TICK_MS) / result.turns;
      const system = ((now.system - then.system) * TICK_MS) / result.turns;
      split.total += user + system;
      if (tid === loopTid) {
        split.loopUser = user;
        split.loopSystem = system;
      } else others.push(user + system);
    }
    others.sort((a, b) => b - a);
    // With the writer thread, the busiest thread besides the event loop is it (V8's compiler and
    // GC helpers each use a fraction of it); they share the rest.
    if (store === "sqlite") split.writer = others.shift() ?? 0;
    split.helpers = others.reduce((sum, ms) => sum + ms, 0);
    return split;
  } finally {
    await server.close(true);
    await host.close();
    await dir.cleanup();
  }
}

console.log(`turn-threads: c=1, ${warm} s warm-up and ${seconds} s measured per round, ${rounds} rounds; ${machineLine()}`);
const results = new Map<string, Split[]>();
for (let round = 0; round < rounds; round++) {
  // Alternate, reversing the order every other round (bench/README.md "Read ratios").
  const order = round % 2 === 0 ? stores : [...stores].reverse();
  for (const store of order) {
    const split = await measure(store);
    results.set(store, [...(results.get(store) ?? []), split]);
    console.log(`  round ${round + 1}, ${store}: total ${fmt(split.total)} ms/turn (loop ${fmt(split.loopUser)} user + ${fmt(split.loopSystem)} system, writer ${fmt(split.writer)}, V8 helpers ${fmt(split.helpers)})`);
  }
}
const memory = results.get("memory");
printTable(
  ["store", "CPU ms/turn", "event loop, user", "event loop, system", "writer thread", "V8 helper threads", "vs memory"],
  stores.map((store) => {
    const runs = results.get(store)!;
    const total = median(runs.map((r) => r.total));
    return [
      store,
      fmt(total),
      fmt(median(runs.map((r) => r.loopUser))),
      fmt(median(runs.map((r) => r.loopSystem))),
      store === "sqlite" ? fmt(median(runs.map((r) => r.writer))) : "",
      fmt(median(runs.map((r) => r.helpers))),
      memory ? fmt(total / median(memory.map((r) => r.total))) : "",
    ];
  }),
);
