/**
 * What an idle host costs: the real CLI serving examples/hello with no requests, on the memory
 * store (no cross-process machinery: nothing shares it) against the sqlite default (its leases are
 * shared: the host polls its process inbox only while it runs turns, and sweeps expired leases
 * every lease ttl; docs/design/processes.md). Reads the process's CPU time (all threads, ns, from
 * the schedstat of each of its threads under /proc) over a quiet window.
 *
 *   npx node bench/idle.ts [--seconds=20] [--rounds=3] [--settle=3]
 *
 * `--settle`: seconds after the server is healthy before the window opens (start-up work: imports,
 * recovery, the first sweep, and the garbage collections V8 runs in the main and writer threads
 * for a while after allocation stops).
 * @module
 */
import { readdir, readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { alternate, fmt, machineLine, median, option, printTable, serveCli, stopCli, tempDir } from "./_util.ts";

const seconds = option("seconds", 20);
const rounds = option("rounds", 3);
const settle = option("settle", 3);
const project = fileURLToPath(new URL("../examples/hello", import.meta.url));
/** Linux reports CPU time in clock ticks of 1/100 s (`getconf CLK_TCK`). */
const TICK_MS = 10;

const STORES = { memory: "memory:", sqlite: "" } as const;
type Store = keyof typeof STORES;

async function cpuMs(pid: number): Promise<number> {
  // Nanoseconds on a CPU, summed over the process's threads (the first field of each thread's
  // schedstat): /proc/<pid>/stat counts 10 ms ticks, too coarse for an idle process.
  try {
    let ns = 0;
    for (const task of await readdir(`/proc/${pid}/task`)) {
      ns += Number((await readFile(`/proc/${pid}/task/${task}/schedstat`, "utf8")).split(" ")[0]);
    }
    return ns / 1e6;
  } catch {
    // Fields 14 and 15 of /proc/<pid>/stat (utime, stime), counted after the command name's ")".
    const stat = await readFile(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
  }
}

async function idleCpu(store: Store): Promise<number> {
  const dir = await tempDir(`idle-${store}`);
  const served = await serveCli(project, dir.path, 60_000, STORES[store] ? ["--storage", STORES[store]] : []);
  try {
    // Start-up work (imports, recovery, the first sweep) settles first.
    await new Promise((resolve) => setTimeout(resolve, settle * 1000));
    const before = await cpuMs(served.child.pid!);
    await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
    return ((await cpuMs(served.child.pid!)) - before) / seconds;
  } finally {
    await stopCli(served);
    await dir.cleanup();
  }
}

console.log(`idle: examples/hello served with no requests, ${seconds} s windows after ${settle} s, ${rounds} rounds; ${machineLine()}`);
const results = await alternate(["memory", "sqlite"] as const, rounds, idleCpu, (store, round, ms) =>
  console.log(`  round ${round + 1} ${store}: ${fmt(ms)} ms CPU per second`),
);
const memory = median(results.memory);
const sqlite = median(results.sqlite);
printTable(
  ["store", "CPU ms per idle second (median)", "vs memory"],
  [
    ["memory", fmt(memory), "1"],
    ["sqlite (default)", fmt(sqlite), memory > 0 ? fmt(sqlite / memory) : "n/a"],
  ],
);
