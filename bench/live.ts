/**
 * Live delivery, sqlite (the durable default) against the memory store in the same run, over real
 * loopback HTTP with the client in its own process (`bench/_live-client.ts`):
 *
 * - followers: 1,000 live streams of one session while it runs turns; per event and follower,
 *   receive time minus the event's `at` (p50, p99);
 * - creates: new sessions at 100 per second, open loop; per session, `POST /v1/session` sent →
 *   first event line on its stream (p50, p99).
 *
 *   npx node bench/live.ts [--followers=1000] [--turns=10] [--rate=100] [--seconds=5] [--rounds=3]
 * @module
 */
import { spawn } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { serveNode } from "../adapters/node.ts";
import { createSqliteStorage } from "../drivers/sqlite/index.ts";
import { createHost } from "../src/index.ts";
import { createMemoryStorage } from "../src/base/storage/memory.ts";
import { alternate, fmt, machineLine, median, option, printTable, scriptedProject, tempDir } from "./_util.ts";

const CLIENT = fileURLToPath(new URL("./_live-client.ts", import.meta.url));
const followers = option("followers", 1_000);
const turns = option("turns", 10);
const rate = option("rate", 100);
const seconds = option("seconds", 5);
const rounds = option("rounds", 3);
const drivers = ["memory", "sqlite"] as const;
type Driver = (typeof drivers)[number];

interface Latency {
  p50: number;
  p99: number;
  max: number;
  samples?: number;
  sessions?: number;
  errors?: number;
}

console.log(`live: ${followers} followers × ${turns} turns; creates at ${rate}/s for ${seconds} s; ${rounds} rounds; ${machineLine()}`);
const fan = await alternate(drivers, rounds, (driver) => withHost(driver, followRun), (driver, round, r) =>
  console.log(`  followers, round ${round + 1}, ${driver}: p50 ${fmt(r.p50)} ms, p99 ${fmt(r.p99)} ms, max ${fmt(r.max)} ms (${r.samples} samples)`),
);
const creates = await alternate(drivers, rounds, (driver) => withHost(driver, createRun), (driver, round, r) =>
  console.log(`  creates, round ${round + 1}, ${driver}: p50 ${fmt(r.p50)} ms, p99 ${fmt(r.p99)} ms, max ${fmt(r.max)} ms (${r.sessions} sessions, ${r.errors} errors)`),
);
printTable(
  ["measure", "store", "p50 ms (median)", "p99 ms (median)", "p99 per round", "p99 ratio to memory"],
  [
    ...drivers.map((d) => row(`${followers} followers: event latency`, d, fan)),
    ...drivers.map((d) => row(`create → first event at ${rate}/s`, d, creates)),
  ],
);

// --- internals ---

function row(what: string, driver: Driver, results: Record<Driver, Latency[]>): string[] {
  const runs = results[driver];
  const p99 = median(runs.map((r) => r.p99));
  return [what, driver, fmt(median(runs.map((r) => r.p50))), fmt(p99), runs.map((r) => fmt(r.p99)).join(" / "), fmt(p99 / median(results.memory.map((r) => r.p99)))];
}

async function withHost<T>(driver: Driver, run: (url: string, host: ReturnType<typeof createHost>) => Promise<T>): Promise<T> {
  const dir = driver === "sqlite" ? await tempDir("live") : undefined;
  const storage = dir ? createSqliteStorage({ path: join(dir.path, "state.db") }) : createMemoryStorage();
  const host = createHost({ agents: [{ slug: "bench", project: scriptedProject(), storage }] });
  await host.ready();
  const server = await serveNode(host, { port: 0, hostname: "127.0.0.1", silent: true });
  try {
    return await run(`${server.url}/bench`, host);
  } finally {
    await server.close(true);
    await host.close();
    await dir?.cleanup();
  }
}

async function followRun(url: string): Promise<Latency> {
  const created = (await (await fetch(`${url}/v1/session`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ message: "hi" }) })).json()) as {
    sessionId: string;
    continuationToken: string;
  };
  let from = 0;
  for (let i = 0; i < 200; i++) {
    const lines = (await (await fetch(`${url}/v1/session/${created.sessionId}/events`)).text()).trim().split("\n");
    from = lines.length;
    if (lines.at(-1)?.includes('"session.waiting"')) break;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return client(["followers", url, created.sessionId, created.continuationToken, from, followers, turns]);
}

function createRun(url: string): Promise<Latency> {
  return client(["creates", url, rate, seconds]);
}

function client(args: Array<string | number>): Promise<Latency> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLIENT, ...args.map(String)], { stdio: ["ignore", "pipe", "inherit"] });
    let stdout = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.on("close", (code) => (code === 0 ? resolve(JSON.parse(stdout) as Latency) : reject(new Error(`live client exited with ${code}`))));
  });
}
