/**
 * Chat turns per second with the scripted model over real loopback HTTP. One turn is
 * `POST /<slug>/v1/session {"message":"hi"}` and then reading the session's live stream until
 * `session.waiting`, so it covers session creation, the turn engine, every event append and the
 * live fan-out. Measured with 1 and with 50 concurrent clients, on the memory driver and on the
 * fs driver with `fsync: "always"`.
 *
 *   npx node bench/turns.ts [--seconds=4] [--rounds=3] [--clients=1,50]
 *
 * Each measurement gets a fresh host, server and (fs) temp root. The two drivers alternate
 * round by round at each concurrency.
 * @module
 */
import { serveNode } from "../adapters/node.ts";
import { createFsStorage } from "../drivers/fs/index.ts";
import { createHost } from "../src/index.ts";
import { createMemoryStorage } from "../src/storage/memory.ts";
import type { StorageDriver } from "../src/storage/types.ts";
import { alternate, fmt, machineLine, median, option, printTable, runClient, scriptedProject, tempDir } from "./_util.ts";

interface TurnsResult {
  turns: number;
  errors: number;
  firstError?: string;
  turnsPerSecond: number;
  p50: number;
  p95: number;
  clientCpu: number;
}

const seconds = option("seconds", 4);
const rounds = option("rounds", 3);
const clientCounts = (process.argv.find((arg) => arg.startsWith("--clients="))?.slice("--clients=".length) ?? "1,50")
  .split(",")
  .map(Number);

const drivers = ["memory", "fs (fsync always)"] as const;
type Driver = (typeof drivers)[number];

console.log(`turns: ${seconds} s per round, ${rounds} rounds per cell; ${machineLine()}`);
const rows: string[][] = [];
for (const clients of clientCounts) {
  const results = await alternate(
    drivers,
    rounds,
    (driver) => measure(driver, clients),
    (driver, round, r) =>
      console.log(`  ${clients} clients, round ${round + 1}, ${driver}: ${fmt(r.turnsPerSecond)} turns/s, p50 ${fmt(r.p50)} ms, p95 ${fmt(r.p95)} ms`),
  );
  for (const driver of drivers) {
    const runs = results[driver];
    const failed = runs.reduce((sum, r) => sum + r.errors, 0);
    if (failed > 0) throw new Error(`turns: ${driver} with ${clients} clients had ${failed} failed turns: ${runs.find((r) => r.firstError)?.firstError}`);
    const mid = [...runs].sort((a, b) => a.turnsPerSecond - b.turnsPerSecond)[(runs.length - 1) >> 1]!;
    rows.push([
      driver,
      String(clients),
      fmt(median(runs.map((r) => r.turnsPerSecond))),
      runs.map((r) => fmt(r.turnsPerSecond)).join(" / "),
      fmt(mid.p50),
      fmt(mid.p95),
      String(runs.reduce((sum, r) => sum + r.turns, 0)),
    ]);
  }
}
printTable(["driver", "clients", "turns/s (median)", "per round", "p50 ms", "p95 ms", "turns measured"], rows);

// --- internals ---

async function measure(driver: Driver, clients: number): Promise<TurnsResult> {
  const dir = driver === "memory" ? undefined : await tempDir("turns");
  const storage: StorageDriver = dir ? createFsStorage({ root: dir.path, fsync: "always" }) : createMemoryStorage();
  const host = createHost({ agents: [{ slug: "bench", project: scriptedProject(), storage }] });
  await host.ready();
  const server = await serveNode(host, { port: 0, hostname: "127.0.0.1", silent: true });
  try {
    return await runClient<TurnsResult>(["turns", `${server.url}/bench`, clients, seconds]);
  } finally {
    await server.close(true);
    await host.close();
    await dir?.cleanup();
  }
}
