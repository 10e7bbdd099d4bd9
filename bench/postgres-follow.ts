/**
 * The Postgres store's driver (docs/design/storage.md, "Postgres driver") against Redis and the
 * sqlite default, in the same run:
 *
 * 1. follow latency: a line appended in one process, seen by a follower in **another process**
 *    (Postgres: `LISTEN/NOTIFY`, then the row read from the table; Redis: blocking `XREAD`),
 *    against sqlite's same-process follow (the only kind it has). Latency is from just before the
 *    `append` call to the follower's listener (wall clock: both processes share the machine's).
 * 2. commit throughput: `--writers` concurrent writers each committing a record and a log line
 *    (a step's commit) one after another, commits/s; every store durable (sqlite
 *    `synchronous=FULL`, Redis `appendfsync always`, Postgres `synchronous_commit=on`), and
 *    Postgres with `synchronous_commit=off` to show what the WAL flush costs.
 *
 *   npx node bench/postgres-follow.ts [--lines=1000] [--rounds=3] [--commits=4000] [--writers=50]
 *
 * Needs the postgresql server and redis-server (Debian packages).
 * @module
 */
import { spawn } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createPostgresStorage } from "../drivers/postgres/index.ts";
import { createRedisStorage } from "../drivers/redis/index.ts";
import { createSqliteStorage } from "../drivers/sqlite/index.ts";
import type { StorageDriver } from "../src/base/storage/types.ts";
import { POSTGRES_BIN, startPostgresServer } from "../test/_postgres-server.ts";
import { REDIS_SERVER, startRedisServer } from "../test/_redis-server.ts";
import { alternate, fmt, machineLine, median, option, percentile, printTable, tempDir } from "./_util.ts";

const now = () => performance.timeOrigin + performance.now();

if (process.argv[2] === "--follower") await follower(process.argv.slice(3));
else await main();

/** A store named on the command line: `postgres|<url>|<namespace>` or `redis|<url>|<prefix>`. */
function open(spec: string): StorageDriver {
  const [kind, url, name] = spec.split("|") as [string, string, string];
  return kind === "postgres" ? createPostgresStorage({ url, namespace: name }) : createRedisStorage({ url, prefix: name });
}

/** Child mode: follow `log`, note each line's latency, print them all after `count` lines. */
async function follower([spec, log, count]: string[]): Promise<void> {
  const storage = open(spec!);
  const latencies: number[] = [];
  await new Promise<void>((resolve) => {
    storage.follow(log!, (_, lines) => {
      const at = now();
      for (const line of lines) latencies.push(at - (JSON.parse(line) as { sentAt: number }).sentAt);
      if (latencies.length >= Number(count)) resolve();
    });
    // Once the position is known and LISTEN has had time to take hold, the writer may start.
    void storage.length(log!).then(() => setTimeout(() => process.stdout.write("ready\n"), 200));
  });
  await storage.close();
  process.stdout.write(`${JSON.stringify(latencies)}\n`);
}

async function main(): Promise<void> {
  if (!POSTGRES_BIN || !REDIS_SERVER) throw new Error("bench/postgres-follow.ts needs the postgresql server and redis-server");
  const lines = option("lines", 1_000);
  const rounds = option("rounds", 3);
  const commits = option("commits", 4_000);
  const writers = option("writers", 50);
  console.log(`postgres-follow: ${lines} followed lines, ${commits} commits by ${writers} writers, ${rounds} rounds; ${machineLine()}`);
  const postgres = await startPostgresServer({ fsync: true });
  const redis = await startRedisServer({ fsync: "always" });
  const dir = await tempDir("postgres-follow");
  let n = 0;
  const sqlite = () => createSqliteStorage({ path: join(dir.path, `state-${++n}.db`) });
  const pgSpec = () => `postgres|${postgres.url}|b${++n}`;
  try {
    const followSubjects = ["sqlite, same process (baseline)", "postgres, another process", "redis, another process", "postgres, same process"] as const;
    const follows = await alternate(
      followSubjects,
      rounds,
      async (subject) => {
        const latencies =
          subject === "postgres, another process"
            ? await crossProcess(pgSpec(), lines)
            : subject === "redis, another process"
              ? await crossProcess(`redis|${redis.url}|b${++n}:`, lines)
              : await sameProcess(subject.startsWith("postgres") ? open(pgSpec()) : sqlite(), lines);
        return latencies.sort((a, b) => a - b);
      },
      (subject, round, r) => console.log(`  round ${round + 1} ${subject}: p50 ${fmt(percentile(r, 50))} ms, p99 ${fmt(percentile(r, 99))} ms`),
    );
    const base = follows["sqlite, same process (baseline)"];
    const b50 = median(base.map((r) => percentile(r, 50)));
    const b99 = median(base.map((r) => percentile(r, 99)));
    console.log("\nFollow latency, append → listener (median of rounds' percentiles):\n");
    printTable(
      ["store and follower", "p50 ms", "p99 ms", "p50 / baseline", "p99 / baseline"],
      followSubjects.map((subject) => {
        const p50 = median(follows[subject].map((r) => percentile(r, 50)));
        const p99 = median(follows[subject].map((r) => percentile(r, 99)));
        return [subject, fmt(p50), fmt(p99), fmt(p50 / b50), fmt(p99 / b99)];
      }),
    );

    const commitSubjects = ["sqlite, synchronous=FULL (baseline)", "redis, appendfsync always", "postgres, synchronous_commit=on", "postgres, synchronous_commit=off"] as const;
    const rates = await alternate(
      commitSubjects,
      rounds,
      (subject) =>
        commitRate(
          subject.startsWith("sqlite")
            ? sqlite()
            : subject.startsWith("redis")
              ? createRedisStorage({ url: redis.url, prefix: `c${++n}:` })
              : createPostgresStorage({
                  url: postgres.url,
                  namespace: `c${++n}`,
                  ...(subject.endsWith("off") ? { postgres: { connection: { synchronous_commit: "off" } } } : {}),
                }),
          commits,
          writers,
        ),
      (subject, round, r) => console.log(`  round ${round + 1} ${subject}: ${fmt(r)} commits/s`),
    );
    const baseRate = median(rates["sqlite, synchronous=FULL (baseline)"]);
    console.log(`\nCommits/s (a record and a log line each), ${writers} writers:\n`);
    printTable(
      ["store", "commits/s (median)", "per round", "/ baseline"],
      commitSubjects.map((subject) => [subject, fmt(median(rates[subject])), rates[subject].map((r) => fmt(r)).join(", "), fmt(median(rates[subject]) / baseRate)]),
    );
  } finally {
    await Promise.all([postgres.close(), redis.close(), dir.cleanup()]);
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
async function crossProcess(spec: string, count: number): Promise<number[]> {
  const script = fileURLToPath(import.meta.url);
  const child = spawn(process.execPath, [script, "--follower", spec, "log", String(count)], { stdio: ["ignore", "pipe", "inherit"] });
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
  const storage = open(spec);
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
  // The first command migrates the schema (Postgres) or opens the file: not part of the rate.
  await storage.get("warm-up");
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
