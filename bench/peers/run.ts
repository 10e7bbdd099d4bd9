/**
 * The same chat turn against agent-serve and the servers people would pick instead: agent-serve's
 * CLI on its durable default store (sqlite) and on `--storage memory:`, Mastra's built server
 * (`generate`, and `generate` with a memory thread on its LibSQL store) and the LangGraph JS dev
 * server, every model a scripted or fake one. Each measurement starts its server fresh, drives it
 * from a separate client process (bench/peers/client.ts) at each concurrency, and stops it.
 *
 *   (export PATH="$PWD/node_modules/.bin:$PATH" && cd bench/peers && npm install && npm run build:mastra)   # once, Node 22
 *   npx node bench/peers/run.ts [--seconds=8] [--warmup=4] [--rounds=3] [--clients=1,50] [--only=sqlite,mastra-memory]
 *
 * Server CPU per turn is the utime+stime delta of the server's process tree (from
 * /proc/<pid>/stat, over the client's measured window) divided by the turns measured.
 * @module
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, readFile, readdir, rm, writeFile } from "node:fs/promises";
import net from "node:net";
import { loadavg } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { alternate, fmt, machineLine, median, option, printTable, tempDir } from "../_util.ts";

const here = fileURLToPath(new URL(".", import.meta.url));
const CLI = fileURLToPath(new URL("../../bin/agent-serve.mjs", import.meta.url));
const MASTRA_SERVER = join(here, "mastra", ".mastra", "output", "index.mjs");
const LANGGRAPH_CLI = join(here, "node_modules", "@langchain", "langgraph-cli", "dist", "cli", "cli.mjs");
/** Linux reports CPU time in clock ticks of 1/100 s (`getconf CLK_TCK`). */
const TICK_MS = 10;

interface ClientResult {
  turns: number;
  errors: number;
  firstError?: string;
  turnsPerSecond: number;
  p50: number;
  p99: number;
}
interface Measured extends ClientResult {
  serverCpuMs: number;
  /** The kernel's share of `serverCpuMs` (stime): syscalls such as fsync, socket writes, futex waits. */
  serverSysMs: number;
  load: number;
}
interface Subject {
  /** What the client drives (see client.ts). */
  kind: "agent-serve" | "mastra-generate" | "mastra-memory" | "langgraph";
  start(dir: string): Promise<Started>;
}
interface Started {
  child: ChildProcess;
  url: string;
}

const subjects = {
  sqlite: { kind: "agent-serve", start: (dir) => startAgentServe(dir, []) },
  memory: { kind: "agent-serve", start: (dir) => startAgentServe(dir, ["--storage", "memory:"]) },
  "mastra-generate": { kind: "mastra-generate", start: startMastra },
  "mastra-memory": { kind: "mastra-memory", start: startMastra },
  langgraph: { kind: "langgraph", start: startLangGraph },
} satisfies Record<string, Subject>;
type Name = keyof typeof subjects;
const labels: Record<Name, string> = {
  sqlite: "agent-serve (sqlite, durable default)",
  memory: "agent-serve (--storage memory:)",
  "mastra-generate": "Mastra generate (no memory)",
  "mastra-memory": "Mastra generate + memory thread (LibSQL)",
  langgraph: "LangGraph JS dev server",
};

const seconds = option("seconds", 8);
const rounds = option("rounds", 3);
const warmup = option("warmup", 4);
const clientCounts = listOption("clients", "1,50").map(Number);
if (clientCounts.some((n) => !Number.isInteger(n) || n <= 0)) throw new Error("peers: --clients must list positive integers, e.g. 1,50");
const names = listOption("only", Object.keys(subjects).join(",")) as Name[];
for (const name of names) if (!(name in subjects)) throw new Error(`peers: unknown subject ${name}; one of ${Object.keys(subjects).join(", ")}`);
if (names.some((name) => name.startsWith("mastra")) && !existsSync(MASTRA_SERVER)) {
  throw new Error("peers: Mastra is not built; run `npm install && npm run build:mastra` in bench/peers");
}
if (names.includes("langgraph") && !existsSync(LANGGRAPH_CLI)) throw new Error("peers: run `npm install` in bench/peers first");

console.log(`peers: ${seconds} s per round (after ${warmup} s warm-up), ${rounds} rounds per cell; ${machineLine()}`);
const rows: string[][] = [];
const cells = new Map<string, Measured[]>();
const loads: number[] = [];
for (const clients of clientCounts) {
  const results = await alternate(
    names,
    rounds,
    (name) => measure(name, clients),
    (name, round, r) =>
      console.log(
        `  ${clients} clients, round ${round + 1}, ${name}: ${fmt(r.turnsPerSecond)} turns/s, p50 ${fmt(r.p50)} ms, p99 ${fmt(r.p99)} ms, ` +
          `server CPU ${fmt(r.serverCpuMs)} ms/turn (kernel ${fmt(r.serverSysMs)}), ${r.turns} turns, load ${r.load.toFixed(1)}`,
      ),
  );
  for (const name of names) {
    const runs = results[name];
    loads.push(...runs.map((r) => r.load));
    cells.set(`${name}@${clients}`, runs);
    const failed = runs.reduce((sum, r) => sum + r.errors, 0);
    rows.push([
      labels[name],
      String(clients),
      fmt(median(runs.map((r) => r.turnsPerSecond))),
      runs.map((r) => fmt(r.turnsPerSecond)).join(" / "),
      // A round without a completed turn has no latency: the medians are over the rounds that have one.
      fmt(median(runs.map((r) => r.p50).filter(Number.isFinite))),
      fmt(median(runs.map((r) => r.p99).filter(Number.isFinite))),
      fmt(median(runs.map((r) => r.serverCpuMs))),
      fmt(median(runs.map((r) => r.serverSysMs))),
      String(runs.reduce((sum, r) => sum + r.turns, 0)),
      failed === 0 ? "0" : `${failed} (${runs.find((r) => r.firstError)?.firstError?.slice(0, 80)})`,
    ]);
  }
}
console.log(`\nload average (1 min) during the measurements: ${fmt(Math.min(...loads))}–${fmt(Math.max(...loads))}\n`);
printTable(["server", "clients", "turns/s (median)", "per round", "p50 ms", "p99 ms", "server CPU ms/turn", "of it kernel ms", "turns measured", "failed"], rows);
printTargets();

// --- measuring ---

async function measure(name: Name, clients: number): Promise<Measured> {
  const dir = await tempDir(`peers-${name}`);
  const subject: Subject = subjects[name];
  const started = await subject.start(dir.path);
  try {
    let before = { user: 0, system: 0 };
    let after = { user: 0, system: 0 };
    const result = await runClient([subject.kind, started.url, clients, seconds, warmup], async (mark) => {
      if (mark === "start") before = await treeCpuTicks(started.child.pid!);
      else after = await treeCpuTicks(started.child.pid!);
    });
    const perTurn = (ticks: number) => (ticks * TICK_MS) / Math.max(1, result.turns);
    return {
      ...result,
      serverCpuMs: perTurn(after.user + after.system - before.user - before.system),
      serverSysMs: perTurn(after.system - before.system),
      load: loadavg()[0]!,
    };
  } finally {
    await stop(started.child);
    await dir.cleanup();
  }
}

/** Runs client.ts; `onMark` is awaited in order, so both CPU samples are taken before it resolves. */
function runClient(args: readonly (string | number)[], onMark: (mark: string) => Promise<void>): Promise<ClientResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(here, "client.ts"), ...args.map(String)], { stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    let marks = Promise.resolve();
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
      for (let end = stderr.indexOf("\n"); end !== -1; end = stderr.indexOf("\n")) {
        const line = stderr.slice(0, end);
        stderr = stderr.slice(end + 1);
        if (line.startsWith("mark:")) marks = marks.then(() => onMark(line.slice("mark:".length)));
        else process.stderr.write(`${line}\n`);
      }
    });
    child.on("error", reject);
    child.on("close", (code) => {
      if (code !== 0) return reject(new Error(`peers client exited with ${code}: ${stderr.trim()}`));
      marks.then(() => resolve(JSON.parse(stdout) as ClientResult), reject);
    });
  });
}

/** utime and stime (clock ticks) of `pid` and every live descendant: the LangGraph dev server runs its API in a child. */
async function treeCpuTicks(pid: number): Promise<{ user: number; system: number }> {
  const total = { user: 0, system: 0 };
  const pending = [pid];
  while (pending.length > 0) {
    const current = pending.pop()!;
    try {
      const stat = await readFile(`/proc/${current}/stat`, "utf8");
      // Fields after the command name (which may hold spaces): state is field 3, utime 14, stime 15.
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      total.user += Number(fields[11]);
      total.system += Number(fields[12]);
      for (const task of await readdir(`/proc/${current}/task`)) {
        const children = await readFile(`/proc/${current}/task/${task}/children`, "utf8").catch(() => "");
        for (const child of children.trim().split(/\s+/).filter(Boolean)) pending.push(Number(child));
      }
    } catch {
      // The process exited between listing and reading.
    }
  }
  return total;
}

// --- servers ---

/** No model credential reaches a server, so agent-serve runs its scripted model. */
function serverEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ...extra };
  for (const key of Object.keys(env)) if (/API_KEY|AUTH_TOKEN|^AGENT_SERVE_/.test(key)) delete env[key];
  // Scripts with `#!/usr/bin/env node` get the same Node as this script.
  env.PATH = `${dirname(process.execPath)}:${env.PATH ?? ""}`;
  return env;
}

async function startAgentServe(dir: string, extraArgs: string[]): Promise<Started> {
  const project = join(dir, "project");
  await mkdir(join(project, "bot"), { recursive: true });
  await writeFile(join(project, "bot", "instructions.md"), "You are a benchmark agent.\n");
  await writeFile(join(project, "package.json"), `${JSON.stringify({ name: "bench-agent", private: true })}\n`);
  const args = [CLI, "serve", project, "--port", "0", "--state-root", join(dir, "state"), "--mode", "single", ...extraArgs];
  const child = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "pipe"], env: serverEnv({}), detached: true });
  const url = await waitForOutput(child, /listening on (http:\/\/\S+)/);
  await waitHealthy(`${url}/v1/health`, child);
  return { child, url };
}

async function startMastra(dir: string): Promise<Started> {
  const port = await freePort();
  const env = serverEnv({ PORT: String(port), BENCH_MASTRA_DB: join(dir, "mastra.db"), MASTRA_TELEMETRY_DISABLED: "1" });
  const child = spawn(process.execPath, [MASTRA_SERVER], { cwd: join(here, "mastra"), stdio: ["ignore", "pipe", "pipe"], env, detached: true });
  const url = `http://127.0.0.1:${port}`;
  await waitHealthy(`${url}/api/agents`, child);
  return { child, url };
}

async function startLangGraph(dir: string): Promise<Started> {
  // The dev server saves its in-memory threads there on exit and loads them on start: start empty.
  await rm(join(here, "langgraph", ".langgraph_api"), { recursive: true, force: true });
  const port = await freePort();
  const env = serverEnv({ LANGSMITH_TRACING: "false", LANGCHAIN_TRACING_V2: "false", LANGGRAPH_NO_ANALYTICS: "1" });
  const args = [LANGGRAPH_CLI, "dev", "--port", String(port), "--host", "127.0.0.1", "--no-browser", "--config", join(here, "langgraph", "langgraph.json")];
  const child = spawn(process.execPath, args, { cwd: dir, stdio: ["ignore", "pipe", "pipe"], env, detached: true });
  const url = `http://127.0.0.1:${port}`;
  await waitHealthy(`${url}/ok`, child, 120_000);
  return { child, url };
}

function waitForOutput(child: ChildProcess, pattern: RegExp): Promise<string> {
  let output = "";
  return new Promise((resolve, reject) => {
    const onData = (chunk: string) => {
      output += chunk;
      const match = pattern.exec(output);
      if (match) resolve(match[1]!);
    };
    child.stdout!.setEncoding("utf8").on("data", onData);
    child.stderr!.setEncoding("utf8").on("data", onData);
    child.once("exit", (code) => reject(new Error(`peers: server exited with ${code} before listening:\n${output}`)));
  });
}

async function waitHealthy(url: string, child: ChildProcess, timeoutMs = 60_000): Promise<void> {
  let output = "";
  child.stdout?.setEncoding("utf8").on("data", (chunk: string) => (output = (output + chunk).slice(-4000)));
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => (output = (output + chunk).slice(-4000)));
  const begin = performance.now();
  for (;;) {
    if (child.exitCode !== null) throw new Error(`peers: server exited with ${child.exitCode}:\n${output}`);
    const ok = await fetch(url).then((response) => response.ok, () => false);
    if (ok) return;
    if (performance.now() - begin > timeoutMs) throw new Error(`peers: ${url} not healthy within ${timeoutMs} ms:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** SIGTERM to the server's process group, SIGKILL if it has not exited after 5 s. */
async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  process.kill(-child.pid!, "SIGTERM");
  const timer = setTimeout(() => process.kill(-child.pid!, "SIGKILL"), 5000);
  await exited;
  clearTimeout(timer);
  // Children of the group (the LangGraph API worker) may outlive the leader for a moment.
  try {
    process.kill(-child.pid!, "SIGKILL");
  } catch {
    // Already gone.
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => (typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port"))));
    });
  });
}

function listOption(name: string, fallback: string): string[] {
  const raw = process.argv.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback;
  return raw.split(",").filter(Boolean);
}

// --- targets ---

function printTargets(): void {
  const cell = (name: Name, clients: number) => cells.get(`${name}@${clients}`);
  const rate = (name: Name, clients: number) => median(cell(name, clients)?.map((r) => r.turnsPerSecond) ?? []);
  const lines: string[][] = [];
  const ratio = (against: Name, need: number) => {
    const value = rate("sqlite", 50) / rate(against, 50);
    lines.push([`c=50 turns/s ≥ ${need}× ${labels[against]}`, `${fmt(rate("sqlite", 50))} vs ${fmt(rate(against, 50))}: ${fmt(value)}×`, verdict(value >= need)]);
  };
  if (cell("sqlite", 50) && cell("mastra-memory", 50)) ratio("mastra-memory", 2);
  if (cell("sqlite", 50) && cell("mastra-generate", 50)) ratio("mastra-generate", 1);
  const c1 = cell("sqlite", 1);
  if (c1) {
    const p50 = median(c1.map((r) => r.p50));
    const memoryP50 = median(cell("memory", 1)?.map((r) => r.p50) ?? []);
    lines.push(["c=1 p50 < 5 ms", `${fmt(p50)} ms (memory store ${fmt(memoryP50)} ms)`, verdict(p50 < 5)]);
  }
  for (const clients of clientCounts) {
    const runs = cell("sqlite", clients);
    if (!runs) continue;
    const cpu = median(runs.map((r) => r.serverCpuMs));
    lines.push([`server CPU < 2 ms/turn (c=${clients})`, `${fmt(cpu)} ms`, verdict(cpu < 2)]);
  }
  if (lines.length === 0) return;
  console.log("");
  printTable(["target (agent-serve on sqlite)", "reached", "met?"], lines);
}

function verdict(met: boolean): string {
  return met ? "yes" : "no";
}
