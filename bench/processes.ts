/**
 * Many processes as one host (docs/design/processes.md): chat turns per second and latency with
 * 1, 2 and 4 host processes on one Redis, against one process on the sqlite default, in the same
 * run. One turn is `POST /<slug>/v1/session {"message":"hi"}` on one process and reading the
 * session's live stream up to `session.waiting` on the **next** process (round robin), so with
 * two or more processes every turn is followed across processes, as behind a load balancer
 * (`, same`: on the process that took the create).
 *
 *   npx node bench/processes.ts [--seconds=4] [--rounds=3] [--clients=32]
 *
 * Every host process is a child `node` process (createHost + serveNode); the load client is
 * another. Redis is a child `redis-server` with the append-only file synced once a second
 * (`appendfsync everysec`) and also on every write (`always`, what sqlite's `synchronous=FULL`
 * does), so both durability settings are shown. The machine's cores are shared by all of them:
 * read the figures as ratios within one run.
 * @module
 */
import { spawn, type ChildProcess } from "node:child_process";
import http from "node:http";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { REDIS_SERVER, startRedisServer, type RedisServer } from "../test/_redis-server.ts";
import { alternate, fmt, machineLine, median, option, percentile, printTable, readStreamToWaiting, tempDir } from "./_util.ts";

const SELF = fileURLToPath(import.meta.url);

if (process.argv[2] === "--host") await hostProcess(process.argv.slice(3));
else if (process.argv[2] === "--client") await clientProcess(process.argv.slice(3));
else await main();

// --- the measurement ---

interface Result {
  turns: number;
  errors: number;
  firstError?: string;
  turnsPerSecond: number;
  p50: number;
  p99: number;
}

/**
 * `<store> x<processes>`; `, same` streams from the process that took the create (no cross-process
 * follow), to tell the cost of following across processes from the cost of more processes.
 */
type Subject = "sqlite x1" | "redis x1" | "redis x2" | "redis x4" | "redis x4, same" | "redis(always) x1" | "redis(always) x4";

async function main(): Promise<void> {
  if (!REDIS_SERVER) throw new Error("bench/processes.ts needs redis-server (apt-get install redis-server)");
  const seconds = option("seconds", 4);
  const rounds = option("rounds", 3);
  const clients = option("clients", 32);
  console.log(`processes: ${seconds} s per round, ${rounds} rounds, ${clients} clients; ${machineLine()}`);
  const everysec = await startRedisServer({ fsync: "everysec" });
  const always = await startRedisServer({ fsync: "always" });
  try {
    const subjects: Subject[] = ["sqlite x1", "redis x1", "redis x2", "redis x4", "redis x4, same", "redis(always) x1", "redis(always) x4"];
    let run = 0;
    const results = await alternate(
      subjects,
      rounds,
      (subject) => measure(subject, subject.startsWith("redis(always)") ? always : everysec, run++, clients, seconds),
      (subject, round, r) =>
        console.log(`  round ${round + 1}, ${subject}: ${fmt(r.turnsPerSecond)} turns/s, p50 ${fmt(r.p50)} ms, p99 ${fmt(r.p99)} ms, errors ${r.errors}`),
    );
    const base = median(results["sqlite x1"].map((r) => r.turnsPerSecond));
    const rows = subjects.map((subject) => {
      const runs = results[subject];
      const failed = runs.reduce((sum, r) => sum + r.errors, 0);
      if (failed > 0) throw new Error(`processes: ${subject} had ${failed} failed turns: ${runs.find((r) => r.firstError)?.firstError}`);
      const mid = [...runs].sort((a, b) => a.turnsPerSecond - b.turnsPerSecond)[(runs.length - 1) >> 1]!;
      const tps = median(runs.map((r) => r.turnsPerSecond));
      return [subject, fmt(tps), runs.map((r) => fmt(r.turnsPerSecond)).join(" / "), `${fmt(tps / base)}x`, fmt(mid.p50), fmt(mid.p99), String(runs.reduce((s, r) => s + r.turns, 0))];
    });
    printTable(["store x processes", "turns/s (median)", "per round", "vs sqlite x1", "p50 ms", "p99 ms", "turns measured"], rows);
  } finally {
    await everysec.close();
    await always.close();
  }
}

async function measure(subject: Subject, redis: RedisServer, run: number, clients: number, seconds: number): Promise<Result> {
  const count = Number(/ x(\d+)/.exec(subject)![1]);
  const dir = subject.startsWith("sqlite") ? await tempDir("processes") : undefined;
  const store = dir ? `sqlite:${join(dir.path, "state.db")}` : `${redis.url}|bench${run}:`;
  const hosts = await Promise.all(Array.from({ length: count }, () => startHost(store)));
  try {
    return await runLoad(hosts.map((h) => `${h.url}/bench`), clients, seconds, subject.endsWith(", same") ? 0 : 1);
  } finally {
    await Promise.all(hosts.map((h) => stopChild(h.child)));
    await dir?.cleanup();
  }
}

// --- host processes ---

async function startHost(store: string): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [SELF, "--host", store], { stdio: ["ignore", "pipe", "inherit"] });
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

/**
 * Child mode: one host over `sqlite:<path>`, `<redis url>|<prefix>` or `<postgres url>|<namespace>`,
 * served on a free port (bench/postgres-turns.ts starts its hosts here too).
 */
async function hostProcess([store]: string[]): Promise<void> {
  const { createHost } = await import("../src/index.ts");
  const { serveNode } = await import("../adapters/node.ts");
  const [url, name] = store!.split("|") as [string, string];
  const storage = store!.startsWith("sqlite:")
    ? (await import("../drivers/sqlite/index.ts")).createSqliteStorage({ path: store!.slice("sqlite:".length) })
    : store!.startsWith("postgres://")
      ? (await import("../drivers/postgres/index.ts")).createPostgresStorage({ url, namespace: name })
      : (await import("../drivers/redis/index.ts")).createRedisStorage({ url, prefix: name });
  const quiet = { info() {}, warn() {}, error: (message: string, error?: unknown) => console.error(message, error) };
  const host = createHost({ agents: [{ slug: "bench", project: { name: "bench", agent: {}, instructions: "You are a benchmark agent.", diagnostics: [] }, storage }], logger: quiet });
  await host.ready();
  const server = await serveNode(host, { port: 0, hostname: "127.0.0.1", silent: true });
  process.stdout.write(`url ${server.url}\n`);
  process.once("SIGTERM", () => {
    void (async () => {
      await server.close(true);
      await host.close();
      process.exit(0);
    })();
  });
}

// --- the load client ---

function runLoad(bases: string[], clients: number, seconds: number, streamShift: number): Promise<Result> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [SELF, "--client", String(clients), String(seconds), String(streamShift), ...bases], { stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (out += chunk));
    child.once("exit", (code) => {
      if (code !== 0) return reject(new Error(`load client exited with ${code}`));
      resolve(JSON.parse(out) as Result);
    });
  });
}

/** Child mode: `clients` closed loops of turns for `seconds` (after a 1 s warm-up). */
async function clientProcess([clientsText, secondsText, shiftText, ...bases]: string[]): Promise<void> {
  const shift = Number(shiftText);
  const clients = Number(clientsText);
  const agent = new http.Agent({ keepAlive: true, maxSockets: clients });
  const latencies: number[] = [];
  let turns = 0;
  let errors = 0;
  let firstError: string | undefined;
  let measuring = false;
  let stopping = false;
  let next = 0;
  const worker = async (): Promise<void> => {
    while (!stopping) {
      const at = next++;
      const started = performance.now();
      try {
        const created = await post(`${bases[at % bases.length]}/v1/session`, agent, JSON.stringify({ message: "hi" }));
        const { sessionId } = JSON.parse(created) as { sessionId: string };
        await readStreamToWaiting(`${bases[(at + shift) % bases.length]}/v1/session/${sessionId}/stream`);
        if (measuring && !stopping) {
          turns++;
          latencies.push(performance.now() - started);
        }
      } catch (error) {
        errors++;
        firstError ??= error instanceof Error ? error.message : String(error);
        await new Promise((r) => setTimeout(r, 10));
      }
    }
  };
  const workers = Array.from({ length: clients }, worker);
  await new Promise((r) => setTimeout(r, 1_000));
  measuring = true;
  const start = performance.now();
  await new Promise((r) => setTimeout(r, Number(secondsText) * 1000));
  stopping = true;
  const elapsed = (performance.now() - start) / 1000;
  await Promise.all(workers);
  agent.destroy();
  latencies.sort((a, b) => a - b);
  const result: Result = { turns, errors, ...(firstError ? { firstError } : {}), turnsPerSecond: turns / elapsed, p50: percentile(latencies, 50), p99: percentile(latencies, 99) };
  process.stdout.write(`${JSON.stringify(result)}\n`);
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
