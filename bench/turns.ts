/**
 * Chat turns per second with the scripted model over real loopback HTTP. One turn is
 * `POST /<slug>/v1/session {"message":"hi"}` and then reading the session's live stream until
 * `session.waiting`, so it covers session creation, the turn engine, every event append and the
 * live fan-out. Measured with 1 and with 50 concurrent clients, on the memory driver (the
 * baseline) and on the sqlite driver (the durable default: WAL, `synchronous=FULL`).
 *
 *   npx node bench/turns.ts [--seconds=4] [--rounds=3] [--clients=1,50] [--baseline=<checkout>] [--stores=memory,sqlite,sqlite-inline,sqlite-thread]
 *
 * `--baseline=<dir>`: another checkout of the project (e.g. `git worktree add` or an export of an
 * earlier commit, with `node_modules` linked); its host and drivers are loaded into the same
 * process and measured alternately with this checkout's, as `base memory` and `base sqlite`, so
 * "before" and "after" share the machine's load of the same minutes.
 *
 * Each measurement gets a fresh host, server and (sqlite) temp root. The two drivers alternate
 * round by round at each concurrency. For reading the sqlite numbers it also prints the storage
 * calls one turn makes and what one `fdatasync` and one durable commit cost on this disk.
 * @module
 */
import { serveNode } from "../adapters/node.ts";
import { open } from "node:fs/promises";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { createSqliteStorage } from "../drivers/sqlite/index.ts";
import { createHost } from "../src/index.ts";
import { createMemoryStorage } from "../src/base/storage/memory.ts";
import type { StorageDriver } from "../src/base/storage/types.ts";
import { alternate, fmt, type TurnsResult as LoadTurns, machineLine, median, option, printTable, runClient, scriptedProject, tempDir } from "./_util.ts";

/** What `bench/_load.ts turns` prints, with the host process's CPU and event-loop delay beside it. */
interface TurnsResult extends LoadTurns {
  clientCpu: number;
  /** Server (host process) CPU milliseconds per measured turn. */
  serverCpuMs: number;
  /** Event-loop delay of the host process while measuring (p99 and max, ms): how long synchronous work held the loop. */
  loopP99: number;
  loopMax: number;
}

const seconds = option("seconds", 4);
const rounds = option("rounds", 3);
const clientCounts = (process.argv.find((arg) => arg.startsWith("--clients="))?.slice("--clients=".length) ?? "1,50")
  .split(",")
  .map(Number);
if (clientCounts.some((n) => !Number.isInteger(n) || n <= 0)) throw new Error("turns: --clients must list positive integers, e.g. 1,50");

interface Code {
  createHost: typeof createHost;
  createSqliteStorage: typeof createSqliteStorage;
  createMemoryStorage: typeof createMemoryStorage;
  serveNode: typeof serveNode;
}
const ours: Code = { createHost, createSqliteStorage, createMemoryStorage, serveNode };
const baselineDir = process.argv.find((arg) => arg.startsWith("--baseline="))?.slice("--baseline=".length);
/**
 * `sqlite-inline`: the sqlite driver without its writer thread (`writerThread: false`), every
 * commit on the event loop; `sqlite-thread`: every commit on the writer thread
 * (`inlineCommits: false`); `sqlite`: the default, lone commits inline (docs/design/speed.md
 * "A lone commit runs inline").
 */
const STORES = ["memory", "sqlite", "sqlite-inline", "sqlite-thread"] as const;
const stores = (process.argv.find((arg) => arg.startsWith("--stores="))?.slice("--stores=".length) ?? "memory,sqlite").split(",") as Array<(typeof STORES)[number]>;
if (stores.some((store) => !STORES.includes(store))) throw new Error(`turns: --stores lists some of ${STORES.join(", ")}`);
const base: Code | undefined = baselineDir ? await loadCode(baselineDir) : undefined;
const drivers: string[] = [...stores, ...(base ? stores.map((store) => `base ${store}`) : [])];
type Driver = string;

console.log(`turns: ${seconds} s per round, ${rounds} rounds per cell; ${machineLine()}`);
await describeDisk();
const rows: string[][] = [];
const summary = new Map<string, { p50: number; cpu: number; rate: number }>();
for (const clients of clientCounts) {
  const results = await alternate(
    drivers,
    rounds,
    (driver) => measure(driver, clients),
    (driver, round, r) =>
      console.log(
        `  ${clients} clients, round ${round + 1}, ${driver}: ${fmt(r.turnsPerSecond)} turns/s, p50 ${fmt(r.p50)} ms, p95 ${fmt(r.p95)} ms, ` +
          `server CPU ${fmt(r.serverCpuMs)} ms/turn, loop delay p99 ${fmt(r.loopP99)} ms (max ${fmt(r.loopMax)})`,
      ),
  );
  for (const driver of drivers) {
    const runs = results[driver]!;
    const failed = runs.reduce((sum, r) => sum + r.errors, 0);
    if (failed > 0) throw new Error(`turns: ${driver} with ${clients} clients had ${failed} failed turns: ${runs.find((r) => r.firstError)?.firstError}`);
    const mid = [...runs].sort((a, b) => a.turnsPerSecond - b.turnsPerSecond)[(runs.length - 1) >> 1]!;
    summary.set(`${driver}|${clients}`, { p50: median(runs.map((r) => r.p50)), cpu: median(runs.map((r) => r.serverCpuMs)), rate: median(runs.map((r) => r.turnsPerSecond)) });
    rows.push([
      driver,
      String(clients),
      fmt(median(runs.map((r) => r.turnsPerSecond))),
      runs.map((r) => fmt(r.turnsPerSecond)).join(" / "),
      fmt(mid.p50),
      fmt(mid.p95),
      fmt(median(runs.map((r) => r.serverCpuMs))),
      fmt(median(runs.map((r) => r.loopP99))),
      String(runs.reduce((sum, r) => sum + r.turns, 0)),
    ]);
  }
}
printTable(["driver", "clients", "turns/s (median)", "per round", "p50 ms", "p95 ms", "server CPU ms/turn", "loop delay p99 ms", "turns measured"], rows);
// Ratios within the run: this code against the baseline's, and sqlite against memory.
const ratioRows: string[][] = [];
for (const clients of clientCounts) {
  for (const prefix of base ? ["", "base "] : [""]) {
    for (const store of stores) {
      const own = summary.get(`${prefix}${store}|${clients}`)!;
      const memory = summary.get(`${prefix}memory|${clients}`);
      const before = prefix === "" ? summary.get(`base ${store}|${clients}`) : undefined;
      ratioRows.push([
        `${prefix}${store}`,
        String(clients),
        fmt(own.p50),
        fmt(own.cpu),
        memory ? fmt(own.rate / memory.rate) : "n/a",
        before ? fmt(own.p50 / before.p50) : "",
        before ? fmt(own.cpu / before.cpu) : "",
        before ? fmt(own.rate / before.rate) : "",
      ]);
    }
  }
}
console.log("");
printTable(["code, store", "clients", "p50 ms (median of rounds)", "server CPU ms/turn", "turns/s vs memory", "p50 vs base", "CPU vs base", "turns/s vs base"], ratioRows);

// --- internals ---

async function loadCode(dir: string): Promise<Code> {
  const at = (path: string) => import(pathToFileURL(resolve(dir, path)).href);
  const [host, sqlite, memory, node] = await Promise.all([at("src/index.ts"), at("drivers/sqlite/index.ts"), at("src/base/storage/memory.ts"), at("adapters/node.ts")]);
  return { createHost: host.createHost, createSqliteStorage: sqlite.createSqliteStorage, createMemoryStorage: memory.createMemoryStorage, serveNode: node.serveNode };
}

async function measure(driver: Driver, clients: number): Promise<TurnsResult> {
  const code = driver.startsWith("base ") ? base! : ours;
  const dir = driver.endsWith("memory") ? undefined : await tempDir("turns");
  const options = { path: join(dir?.path ?? "", "state.db"), ...(driver.endsWith("sqlite-inline") ? { writerThread: false } : {}), ...(driver.endsWith("sqlite-thread") ? { inlineCommits: false } : {}) };
  const storage: StorageDriver = dir ? code.createSqliteStorage(options) : code.createMemoryStorage();
  const host = code.createHost({ agents: [{ slug: "bench", project: scriptedProject(), storage }] });
  await host.ready();
  const server = await code.serveNode(host, { port: 0, hostname: "127.0.0.1", silent: true });
  try {
    const loop = monitorEventLoopDelay({ resolution: 1 });
    let cpuStart = process.cpuUsage();
    let cpu = { user: 0, system: 0 };
    const result = await runClient<TurnsResult>(["turns", `${server.url}/bench`, clients, seconds], (mark) => {
      if (mark === "start") {
        cpuStart = process.cpuUsage();
        loop.enable();
      } else {
        cpu = process.cpuUsage(cpuStart);
        loop.disable();
      }
    });
    return {
      ...result,
      serverCpuMs: (cpu.user + cpu.system) / 1000 / Math.max(1, result.turns),
      loopP99: loop.percentile(99) / 1e6,
      loopMax: loop.max / 1e6,
    };
  } finally {
    await server.close(true);
    await host.close();
    await dir?.cleanup();
  }
}

/** Storage calls per turn (sqlite driver, in-process) and the disk's sync costs, for context. */
async function describeDisk(): Promise<void> {
  const dir = await tempDir("turns-probe");
  try {
    const counts = new Map<string, number>();
    const storage = counting(createSqliteStorage({ path: join(dir.path, "state", "state.db") }), counts);
    const host = createHost({ agents: [{ slug: "bench", project: scriptedProject(), storage }] });
    const sample = 20;
    for (let i = 0; i < sample; i++) await inProcessTurn(host);
    await host.close();
    const perTurn = [...counts].filter(([name]) => name !== "close").map(([name, n]) => `${name} ${fmt(n / sample)}`);
    console.log(`  storage calls per turn (sqlite, ${sample} turns): ${perTurn.join(", ")}`);
    // Each of these is one storage commit (the port's one-write operations are commits too).
    const commits = ["commit", "set", "delete", "append"].reduce((sum, name) => sum + (counts.get(name) ?? 0), 0);
    console.log(`  storage commits per turn (commit, set, delete, append): ${fmt(commits / sample)}`);

    const file = await open(join(dir.path, "probe.log"), "a");
    const syncs: number[] = [];
    for (let i = 0; i < 30; i++) {
      await file.write(`${"x".repeat(200)}\n`);
      const begin = performance.now();
      await file.datasync();
      syncs.push(performance.now() - begin);
    }
    await file.close();
    const records = createSqliteStorage({ path: join(dir.path, "records", "state.db") });
    const sets: number[] = [];
    for (let i = 0; i < 30; i++) {
      const begin = performance.now();
      await records.set(`probe/r${i % 3}`, JSON.stringify({ i, pad: "x".repeat(300) }));
      sets.push(performance.now() - begin);
    }
    await records.close();
    console.log(`  this disk: fdatasync median ${fmt(median(syncs))} ms; durable record write (sqlite set, one commit) median ${fmt(median(sets))} ms`);
  } finally {
    await dir.cleanup();
  }
}

async function inProcessTurn(host: ReturnType<typeof createHost>): Promise<void> {
  const created = await host.request("/bench/v1/session", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ message: "hi" }),
  });
  const { sessionId } = (await created.json()) as { sessionId: string };
  const stream = await host.request(`/bench/v1/session/${sessionId}/stream`);
  const reader = stream.body!.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  while (!text.includes('"type":"session.waiting"')) {
    const { value, done } = await reader.read();
    if (done) throw new Error("turns: stream ended before session.waiting");
    text += value;
  }
  await reader.cancel();
}

/** Counts calls per method name. */
function counting(storage: StorageDriver, counts: Map<string, number>): StorageDriver {
  return new Proxy(storage, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        counts.set(String(property), (counts.get(String(property)) ?? 0) + 1);
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
}
