/**
 * The Redis store (docs/design/storage.md, "Redis driver") against the sqlite default, in the
 * same run:
 *
 * 1. follow latency: a line appended in one process, seen by a follower in **another process**
 *    through Redis (blocking `XREAD`), against the sqlite store's same-process follow (the only
 *    kind it has) and the Redis store's same-process follow. Latency is from just before the
 *    `append` call to the follower's listener (wall clock: both processes share the machine's).
 * 2. commit throughput: `--writers` concurrent writers each committing a record and a log line
 *    (a step's commit) one after another, commits/s.
 * 3. one process following many logs at once (one blocking read covers them all): 5,000 lines
 *    appended by another store in waves of 50 across 10 or `--logs` logs, follow latency.
 *
 *   npx node bench/redis-follow.ts [--lines=1000] [--rounds=3] [--commits=4000] [--writers=50] [--logs=1000]
 *
 * Redis runs as a child `redis-server` with the append-only file synced on every write
 * (`appendfsync always`, what sqlite's `synchronous=FULL` does), and also once a second
 * (`everysec`) for the commit figures. Needs `redis-server` (Debian package).
 * @module
 */
import { spawn } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createRedisStorage } from "../drivers/redis/index.ts";
import { createSqliteStorage } from "../drivers/sqlite/index.ts";
import type { StorageDriver } from "../src/base/storage/types.ts";
import { REDIS_SERVER, startRedisServer, type RedisServer } from "../test/_redis-server.ts";
import { alternate, fmt, machineLine, median, option, percentile, printTable, tempDir } from "./_util.ts";

const now = () => performance.timeOrigin + performance.now();

if (process.argv[2] === "--follower") await follower(process.argv.slice(3));
else await main();

/** Child mode: follow `log`, note each line's latency, print them all after `count` lines. */
async function follower([url, prefix, log, count]: string[]): Promise<void> {
  const storage = createRedisStorage({ url: url!, prefix: prefix! });
  const latencies: number[] = [];
  await new Promise<void>((resolve) => {
    storage.follow(log!, (_, lines) => {
      const at = now();
      for (const line of lines) latencies.push(at - (JSON.parse(line) as { sentAt: number }).sentAt);
      if (latencies.length >= Number(count)) resolve();
    });
    void storage.length(log!).then(() => process.stdout.write("ready\n"));
  });
  await storage.close();
  process.stdout.write(`${JSON.stringify(latencies)}\n`);
}

async function main(): Promise<void> {
  if (!REDIS_SERVER) throw new Error("bench/redis-follow.ts needs redis-server (apt-get install redis-server)");
  const lines = option("lines", 1_000);
  const rounds = option("rounds", 3);
  const commits = option("commits", 4_000);
  const writers = option("writers", 50);
  const logs = option("logs", 1_000);
  console.log(`redis-follow: ${lines} followed lines, ${commits} commits by ${writers} writers, ${rounds} rounds; ${machineLine()}`);
  const always = await startRedisServer({ fsync: "always" });
  const everysec = await startRedisServer({ fsync: "everysec" });
  const dir = await tempDir("redis-follow");
  let n = 0;
  const sqlite = () => createSqliteStorage({ path: join(dir.path, `state-${++n}.db`) });
  const redis = (server: RedisServer) => createRedisStorage({ url: server.url, prefix: `b${++n}:` });
  try {
    const followSubjects = ["sqlite, same process (baseline)", "redis, another process", "redis, same process"] as const;
    const follows = await alternate(
      followSubjects,
      rounds,
      async (subject) => {
        const latencies =
          subject === "redis, another process" ? await crossProcess(always, lines) : await sameProcess(subject === "redis, same process" ? redis(always) : sqlite(), lines);
        return latencies.sort((a, b) => a - b);
      },
      (subject, round, r) => console.log(`  round ${round + 1} ${subject}: p50 ${fmt(percentile(r, 50))} ms, p99 ${fmt(percentile(r, 99))} ms`),
    );
    const base = follows["sqlite, same process (baseline)"];
    console.log("\nFollow latency, append → listener (median of rounds' percentiles):\n");
    printTable(
      ["store and follower", "p50 ms", "p99 ms", "p50 / baseline", "p99 / baseline"],
      followSubjects.map((subject) => {
        const p50 = median(follows[subject].map((r) => percentile(r, 50)));
        const p99 = median(follows[subject].map((r) => percentile(r, 99)));
        const b50 = median(base.map((r) => percentile(r, 50)));
        const b99 = median(base.map((r) => percentile(r, 99)));
        return [subject, fmt(p50), fmt(p99), fmt(p50 / b50), fmt(p99 / b99)];
      }),
    );

    const commitSubjects = ["sqlite, synchronous=FULL (baseline)", "redis, appendfsync always", "redis, appendfsync everysec"] as const;
    const rates = await alternate(
      commitSubjects,
      rounds,
      (subject) => commitRate(subject.startsWith("sqlite") ? sqlite() : redis(subject.endsWith("always") ? always : everysec), commits, writers),
      (subject, round, r) => console.log(`  round ${round + 1} ${subject}: ${fmt(r)} commits/s`),
    );
    const baseRate = median(rates["sqlite, synchronous=FULL (baseline)"]);
    console.log(`\nCommits/s (a record and a log line each), ${writers} writers:\n`);
    printTable(
      ["store", "commits/s (median)", "per round", "/ baseline"],
      commitSubjects.map((subject) => [subject, fmt(median(rates[subject])), rates[subject].map((r) => fmt(r)).join(", "), fmt(median(rates[subject]) / baseRate)]),
    );

    const spreads = [10, logs] as const;
    const spreadSubjects = spreads.map((count) => `${count} logs followed`);
    const spread = await alternate(
      spreadSubjects,
      rounds,
      async (subject) => {
        const prefix = `many${++n}:`;
        const [reader, writer] = [0, 1].map(() => createRedisStorage({ url: always.url, prefix })) as [StorageDriver, StorageDriver];
        return (await manyLogs(reader, writer, Number.parseInt(subject, 10))).sort((a, b) => a - b);
      },
      (subject, round, r) => console.log(`  round ${round + 1} ${subject}: p50 ${fmt(percentile(r, 50))} ms, p99 ${fmt(percentile(r, 99))} ms`),
    );
    const first = spread[spreadSubjects[0]!]!;
    console.log("\nOne process following many logs, 5,000 lines in waves of 50 (appendfsync always):\n");
    printTable(
      ["followed logs", "p50 ms", "p99 ms", "p50 / 10 logs", "p99 / 10 logs"],
      spreadSubjects.map((subject) => {
        const p50 = median(spread[subject]!.map((r) => percentile(r, 50)));
        const p99 = median(spread[subject]!.map((r) => percentile(r, 99)));
        return [subject, fmt(p50), fmt(p99), fmt(p50 / median(first.map((r) => percentile(r, 50)))), fmt(p99 / median(first.map((r) => percentile(r, 99))))];
      }),
    );
  } finally {
    await Promise.all([always.close(), everysec.close(), dir.cleanup()]);
  }
}

/** Appends one line at a time (awaited, 1 ms apart) and times each to its same-process follower. */
async function sameProcess(storage: StorageDriver, count: number): Promise<number[]> {
  const latencies: number[] = [];
  const done = new Promise<void>((resolve) => {
    storage.follow("log", (_, lines) => {
      const at = now();
      for (const line of lines) latencies.push(at - (JSON.parse(line) as { sentAt: number }).sentAt);
      if (latencies.length >= count) resolve();
    });
  });
  await storage.length("log");
  await paced(storage, count);
  await done;
  await storage.close();
  return latencies;
}

/** The same appends, followed by a child process on its own connections. */
async function crossProcess(server: RedisServer, count: number): Promise<number[]> {
  const prefix = `x${Date.now()}:`;
  const script = fileURLToPath(import.meta.url);
  const child = spawn(process.execPath, [script, "--follower", server.url, prefix, "log", String(count)], { stdio: ["ignore", "pipe", "inherit"] });
  let out = "";
  child.stdout.setEncoding("utf8");
  await new Promise<void>((resolve, reject) => {
    child.stdout.on("data", (chunk: string) => {
      out += chunk;
      if (out.startsWith("ready\n")) resolve();
    });
    child.once("exit", (code) => reject(new Error(`follower exited early (${code})`)));
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const storage = createRedisStorage({ url: server.url, prefix });
  await paced(storage, count);
  await storage.close();
  await exited;
  return JSON.parse(out.slice("ready\n".length)) as number[];
}

async function paced(storage: StorageDriver, count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    await storage.append("log", [JSON.stringify({ type: "message.delta", index: i, sentAt: now(), data: { delta: "The quick brown fox jumps. " } })]);
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
}

/** `writers` writers, each committing a record and one line to its own session, one after another. */
async function commitRate(storage: StorageDriver, total: number, writers: number): Promise<number> {
  const per = Math.ceil(total / writers);
  const line = JSON.stringify({ type: "step.completed", data: { text: "x".repeat(200) } });
  const start = performance.now();
  await Promise.all(
    Array.from({ length: writers }, async (_, w) => {
      for (let i = 0; i < per; i++) {
        await storage.commit({ records: [{ key: `sessions/s${w}/record`, value: `{"turns":${i}}` }], appends: [{ log: `sessions/s${w}/events`, lines: [line] }] });
      }
    }),
  );
  const rate = (per * writers) / ((performance.now() - start) / 1000);
  await storage.close();
  return rate;
}

/** `reader` follows `count` logs; `writer` appends 5,000 lines over them in waves of 50. */
async function manyLogs(reader: StorageDriver, writer: StorageDriver, count: number): Promise<number[]> {
  const total = 5_000;
  const latencies: number[] = [];
  for (let i = 0; i < count; i++) {
    reader.follow(`log${i}`, (_, lines) => {
      const at = now();
      for (const line of lines) latencies.push(at - Number(line));
    });
  }
  await reader.length("log0");
  for (let k = 0; k < total; k += 50) {
    await Promise.all(Array.from({ length: 50 }, (_, j) => writer.append(`log${(k + j) % count}`, [String(now())])));
  }
  while (latencies.length < total) await new Promise((resolve) => setTimeout(resolve, 5));
  await Promise.all([reader.close(), writer.close()]);
  return latencies;
}
