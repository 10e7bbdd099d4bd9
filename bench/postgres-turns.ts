/**
 * The Postgres store as a host's store (docs/guide/storage.md), side by side with sqlite and
 * Redis in the same run, every store durable (sqlite `synchronous=FULL`, Redis `appendfsync
 * always`, Postgres `fsync=on` and `synchronous_commit=on`):
 *
 * 1. durable chat turns/s and latency at 1 and 50 closed-loop clients, one host process per store;
 * 2. one, two and three host processes on one Postgres at 50 clients, each turn's stream read
 *    from the next process (a follow across processes through LISTEN/NOTIFY);
 * 3. create → first event: sessions created at a fixed rate, the time from the create request to
 *    the first event line on the session's stream (p50, p99).
 *
 *   npx node bench/postgres-turns.ts [--seconds=3] [--rounds=3] [--rate=50]
 *
 * Hosts are child processes started through bench/processes.ts (`--host`), and so is the turn
 * load client (`--client`); the create → first event client is a child of this file. Needs the
 * postgresql server and redis-server (Debian packages).
 * @module
 */
import { spawn, type ChildProcess } from "node:child_process";
import http from "node:http";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { POSTGRES_BIN, startPostgresServer } from "../test/_postgres-server.ts";
import { REDIS_SERVER, startRedisServer } from "../test/_redis-server.ts";
import { alternate, fmt, machineLine, median, option, percentile, printTable, tempDir } from "./_util.ts";

const SELF = fileURLToPath(import.meta.url);
const PROCESSES = fileURLToPath(new URL("./processes.ts", import.meta.url));

if (process.argv[2] === "--first-event") await firstEventClient(process.argv.slice(3));
else await main();

interface Result {
  turns: number;
  errors: number;
  firstError?: string;
  turnsPerSecond: number;
  p50: number;
  p99: number;
}

type Store = "sqlite" | "redis" | "postgres";

async function main(): Promise<void> {
  if (!POSTGRES_BIN || !REDIS_SERVER) throw new Error("bench/postgres-turns.ts needs the postgresql server and redis-server");
  const seconds = option("seconds", 3);
  const rounds = option("rounds", 3);
  const rate = option("rate", 50);
  console.log(`postgres-turns: ${seconds} s per measurement, ${rounds} rounds, create → first event at ${rate}/s; ${machineLine()}`);
  const postgres = await startPostgresServer({ fsync: true });
  const redis = await startRedisServer({ fsync: "always" });
  const dir = await tempDir("postgres-turns");
  let run = 0;
  const storeOf = (store: Store) =>
    store === "sqlite" ? `sqlite:${join(dir.path, `state-${++run}.db`)}` : store === "redis" ? `${redis.url}|b${++run}:` : `${postgres.url}|b${++run}`;
  try {
    // 1 and 2: turns.
    const subjects = ["sqlite x1, c=1", "redis x1, c=1", "postgres x1, c=1", "sqlite x1, c=50", "redis x1, c=50", "postgres x1, c=50", "postgres x2, c=50", "postgres x3, c=50"] as const;
    const turns = await alternate(
      subjects,
      rounds,
      async (subject) => {
        const [, store, count, clients] = /^(\w+) x(\d), c=(\d+)$/.exec(subject)! as unknown as [string, Store, string, string];
        const target = storeOf(store);
        const started = await Promise.all(Array.from({ length: Number(count) }, () => startHost(target)));
        try {
          return await turnLoad(started.map((h) => `${h.url}/bench`), Number(clients), seconds, Number(count) > 1 ? 1 : 0);
        } finally {
          await Promise.all(started.map((h) => stopChild(h.child)));
        }
      },
      (subject, round, r) => console.log(`  round ${round + 1}, ${subject}: ${fmt(r.turnsPerSecond)} turns/s, p50 ${fmt(r.p50)} ms, p99 ${fmt(r.p99)} ms, errors ${r.errors}`),
    );
    console.log("\nDurable turns (create, then the live stream to session.waiting):\n");
    const base = (clients: string) => median(turns[`sqlite x1, c=${clients}` as (typeof subjects)[number]].map((r) => r.turnsPerSecond));
    printTable(
      ["store x processes, clients", "turns/s (median)", "per round", "vs sqlite, same clients", "p50 ms", "p99 ms"],
      subjects.map((subject) => {
        const runs = turns[subject];
        const failed = runs.reduce((sum, r) => sum + r.errors, 0);
        if (failed > 0) throw new Error(`${subject}: ${failed} failed turns: ${runs.find((r) => r.firstError)?.firstError}`);
        const mid = [...runs].sort((a, b) => a.turnsPerSecond - b.turnsPerSecond)[(runs.length - 1) >> 1]!;
        const tps = median(runs.map((r) => r.turnsPerSecond));
        return [subject, fmt(tps), runs.map((r) => fmt(r.turnsPerSecond)).join(" / "), `${fmt(tps / base(subject.split("c=")[1]!))}x`, fmt(mid.p50), fmt(mid.p99)];
      }),
    );

    // 3: create → first event.
    const firstSubjects = ["sqlite", "redis", "postgres"] as const;
    const first = await alternate(
      firstSubjects,
      rounds,
      async (store) => {
        const host = await startHost(storeOf(store));
        try {
          return await firstEventLoad(`${host.url}/bench`, rate, seconds);
        } finally {
          await stopChild(host.child);
        }
      },
      (store, round, r) => console.log(`  round ${round + 1}, ${store}: create → first event p50 ${fmt(percentile(r, 50))} ms, p99 ${fmt(percentile(r, 99))} ms`),
    );
    console.log(`\nCreate → first event at ${rate} creates/s (median of rounds' percentiles):\n`);
    const b99 = median(first.sqlite.map((r) => percentile(r, 99)));
    printTable(
      ["store", "p50 ms", "p99 ms", "p99 / sqlite"],
      firstSubjects.map((store) => {
        const p99 = median(first[store].map((r) => percentile(r, 99)));
        return [store, fmt(median(first[store].map((r) => percentile(r, 50)))), fmt(p99), fmt(p99 / b99)];
      }),
    );
  } finally {
    await Promise.all([postgres.close(), redis.close(), dir.cleanup()]);
  }
}

// --- children ---

async function startHost(store: string): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [PROCESSES, "--host", store], { stdio: ["ignore", "pipe", "inherit"] });
  const url = await new Promise<string>((resolve, reject) => {
    let out = "";
    child.stdout!.setEncoding("utf8").on("data", (chunk: string) => {
      out += chunk;
      const match = /url (\S+)\n/.exec(out);
      if (match) resolve(match[1]!);
    });
    child.once("exit", (code) => reject(new Error(`host process exited with ${code}`)));
  });
  return { child, url };
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.kill("SIGTERM");
  return exited;
}

function childJson<T>(script: string, args: string[]): Promise<T> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, ...args], { stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (out += chunk));
    child.once("exit", (code) => (code === 0 ? resolve(JSON.parse(out) as T) : reject(new Error(`${script} exited with ${code}`))));
  });
}

/** bench/processes.ts's closed-loop turn client: `clients` loops for `seconds` after a 1 s warm-up. */
function turnLoad(bases: string[], clients: number, seconds: number, streamShift: number): Promise<Result> {
  return childJson<Result>(PROCESSES, ["--client", String(clients), String(seconds), String(streamShift), ...bases]);
}

function firstEventLoad(base: string, rate: number, seconds: number): Promise<number[]> {
  return childJson<number[]>(SELF, ["--first-event", base, String(rate), String(seconds)]).then((latencies) => latencies.sort((a, b) => a - b));
}

/** Child mode: creates `rate` sessions a second for `seconds`, each timed to its stream's first line. */
async function firstEventClient([base, rateText, secondsText]: string[]): Promise<void> {
  const agent = new http.Agent({ keepAlive: true });
  const latencies: number[] = [];
  const total = Number(rateText) * Number(secondsText);
  const pending: Array<Promise<void>> = [];
  const startedAt = performance.now();
  for (let i = 0; i < total; i++) {
    const due = startedAt + (i * 1000) / Number(rateText);
    const wait = due - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    pending.push(
      (async () => {
        const started = performance.now();
        const created = JSON.parse(await post(`${base}/v1/session`, agent, JSON.stringify({ message: "hi" }))) as { sessionId: string };
        await firstLine(`${base}/v1/session/${created.sessionId}/stream`);
        latencies.push(performance.now() - started);
      })(),
    );
  }
  await Promise.all(pending);
  agent.destroy();
  process.stdout.write(`${JSON.stringify(latencies)}\n`);
  process.exit(0);
}

function post(url: string, agent: http.Agent, body: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const request = http.request(url, { method: "POST", agent, headers: { "content-type": "application/json" } }, (response) => {
      let text = "";
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => (text += chunk));
      response.on("end", () => (response.statusCode === 200 ? resolve(text) : reject(new Error(`create answered ${response.statusCode}: ${text.slice(0, 200)}`))));
    });
    request.on("error", reject);
    request.end(body);
  });
}

/** Resolves at the first complete line of a live stream, then drops the connection. */
function firstLine(url: string): Promise<void> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent: false }, (response) => {
        response.setEncoding("utf8");
        response.on("data", (chunk: string) => {
          if (chunk.includes("\n")) {
            response.destroy();
            resolve();
          }
        });
      })
      .on("error", reject);
  });
}
