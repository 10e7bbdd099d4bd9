/**
 * Shared helpers of the benchmarks: loopback servers, the client child process, alternating
 * rounds, statistics and Markdown tables.
 *
 * Every benchmark drives its server from a separate client process (`bench/_load.ts`), so the
 * server's event loop is never shared with the code that measures it.
 * @module
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import http from "node:http";
import { serve } from "srvx";
import type { ServerRequest } from "srvx";
import type { ProjectDefinition } from "../src/base/definitions/project.ts";
import type { SessionRecord } from "../src/base/definitions/sessions.ts";

export const CLIENT_SCRIPT = fileURLToPath(new URL("./_load.ts", import.meta.url));

export interface LoopbackServer {
  /** Base URL without a trailing slash. */
  url: string;
  close(): Promise<void>;
}

/** Binds a fetch handler on an ephemeral loopback port, as the tests do. */
export async function serveLoopback(
  fetch: (request: ServerRequest) => Response | Promise<Response>,
): Promise<LoopbackServer> {
  const server = serve({ fetch, port: 0, hostname: "127.0.0.1", silent: true, gracefulShutdown: false });
  await server.ready();
  const address = server.node?.server?.address();
  if (typeof address !== "object" || address === null) throw new Error("bench: server did not bind");
  return { url: `http://127.0.0.1:${address.port}`, close: () => server.close(true) };
}

/**
 * Runs `bench/_load.ts <args>` (or another client `script`) in a child process and parses the
 * JSON it prints. The client writes `mark:start` / `mark:stop` lines on stderr around its measured
 * window; `onMark` gets them as they happen, so the server side can sample its own counters over
 * the same window, and may `send` the client a line on its stdin in answer.
 */
export function runClient<T>(
  args: readonly (string | number)[],
  onMark?: (mark: string, send: (line: string) => void) => void,
  script = CLIENT_SCRIPT,
): Promise<T> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, ...args.map(String)], { stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
      for (let end = stderr.indexOf("\n"); end !== -1; end = stderr.indexOf("\n")) {
        const line = stderr.slice(0, end);
        stderr = stderr.slice(end + 1);
        if (line.startsWith("mark:")) onMark?.(line.slice("mark:".length), (text) => child.stdin.write(`${text}\n`));
        else process.stderr.write(`${line}\n`);
      }
    });
    child.on("error", reject);
    child.on("close", (code) => {
      if (code !== 0) return reject(new Error(`bench client exited with ${code}: ${stderr.trim()}`));
      try {
        resolve(JSON.parse(stdout) as T);
      } catch {
        reject(new Error(`bench client printed no JSON result: ${stdout.slice(0, 200)}`));
      }
    });
  });
}

/**
 * Runs `rounds` rounds over `subjects`, alternating them inside each round (and reversing the
 * order every other round) so slow drift of a shared machine hits every subject alike.
 */
export async function alternate<S extends string, R>(
  subjects: readonly S[],
  rounds: number,
  measure: (subject: S, round: number) => Promise<R>,
  onResult?: (subject: S, round: number, result: R) => void,
): Promise<Record<S, R[]>> {
  const results = Object.fromEntries(subjects.map((subject) => [subject, [] as R[]])) as Record<S, R[]>;
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? subjects : [...subjects].reverse();
    for (const subject of order) {
      const result = await measure(subject, round);
      results[subject].push(result);
      onResult?.(subject, round, result);
    }
  }
  return results;
}

/** Nearest-rank percentile of an ascending array; `p` in [0, 100]. */
export function percentile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))]!;
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Rounds for display: 3 significant digits below 100, whole numbers above. */
export function fmt(value: number, digits = 3): string {
  if (!Number.isFinite(value)) return "n/a";
  if (Math.abs(value) >= 100) return Math.round(value).toLocaleString("en-US");
  return Number(value.toPrecision(digits)).toString();
}

/** Prints a Markdown table (ready to paste into bench/README.md). */
export function printTable(headers: readonly string[], rows: readonly (readonly string[])[]): void {
  const widths = headers.map((header, i) => Math.max(header.length, ...rows.map((row) => (row[i] ?? "").length)));
  const line = (cells: readonly string[]) => `| ${cells.map((cell, i) => cell.padEnd(widths[i]!)).join(" | ")} |`;
  console.log(line(headers));
  console.log(`|${widths.map((width) => "-".repeat(width + 2)).join("|")}|`);
  for (const row of rows) console.log(line(row));
}

/** One line describing where the numbers came from; they mean little without it. */
export function machineLine(): string {
  const cpu = cpus();
  const load = loadavg().map((value) => value.toFixed(2)).join(" ");
  return `node ${process.version}, ${cpu.length} CPU (${cpu[0]?.model.trim() ?? "unknown"}), load average ${load}`;
}

/** A fresh directory under the OS temp dir, removed by the returned `cleanup`. */
export async function tempDir(prefix: string): Promise<{ path: string; cleanup(): Promise<void> }> {
  const path = await mkdtemp(join(tmpdir(), `agent-serve-bench-${prefix}-`));
  return { path, cleanup: () => rm(path, { recursive: true, force: true }) };
}

/** A minimal in-memory project: no model configured, so with no credential it is scripted. */
export function scriptedProject(name = "bench"): ProjectDefinition {
  return { name, agent: {}, instructions: "You are a benchmark agent.", diagnostics: [] };
}

/** A project folder on disk for a served bench host: `bot/agent.ts` exports `agent` (source text). */
export async function agentProjectDir(parent: string, name: string, agent: string): Promise<string> {
  const root = join(parent, name);
  await mkdir(join(root, "bot"), { recursive: true });
  await writeFile(join(root, "package.json"), JSON.stringify({ name: "bench", type: "module" }));
  await writeFile(join(root, "bot", "instructions.md"), "You are a benchmark agent.\n");
  await writeFile(join(root, "bot", "agent.ts"), `export default ${agent};\n`);
  return root;
}

/** Reads a positive integer from `--name=value` on the command line, else the default. */
export function option(name: string, fallback: number): number {
  const prefix = `--${name}=`;
  const raw = process.argv.find((arg) => arg.startsWith(prefix))?.slice(prefix.length);
  const value = raw === undefined ? fallback : Number(raw);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`bench: --${name} must be a positive number`);
  return value;
}

export interface ServedCli {
  child: ChildProcess;
  url: string;
  /** Spawn to the first 200 from `GET /v1/health`. */
  readyMs: number;
  rssMb: number;
  peakMb: number;
}

const CLI = fileURLToPath(new URL("../bin/agent-serve.mjs", import.meta.url));

/** Spawns `agent-serve serve <project>` (single mode, any port) and resolves once it is healthy. */
export async function serveCli(project: string, stateRoot: string, timeoutMs = 60_000, extraArgs: readonly string[] = []): Promise<ServedCli> {
  const begin = performance.now();
  const child = spawn(process.execPath, [CLI, "serve", project, "--port", "0", "--state-root", stateRoot, "--mode", "single", ...extraArgs], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout!.setEncoding("utf8").on("data", (chunk: string) => {
      output += chunk;
      const match = /listening on (http:\/\/\S+)/.exec(output);
      if (match) resolve(match[1]!);
    });
    child.once("exit", (code) => reject(new Error(`bench: the CLI exited with ${code} before listening:\n${output}`)));
  });
  for (;;) {
    const ok = await fetch(`${url}/v1/health`).then((response) => response.ok, () => false);
    if (ok) break;
    if (performance.now() - begin > timeoutMs) throw new Error(`bench: no healthy answer within ${timeoutMs} ms:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  const readyMs = performance.now() - begin;
  const status = await readFile(`/proc/${child.pid}/status`, "utf8");
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? Number.NaN);
  return { child, url, readyMs, rssMb: kb("VmRSS") / 1024, peakMb: kb("VmHWM") / 1024 };
}

/** SIGTERM, then waits for the exit. */
export async function stopCli({ child }: ServedCli): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGTERM");
  await exited;
}

/**
 * Reads a session's live NDJSON stream until `session.waiting`. A live stream never ends on its
 * own, so it gets its own connection, dropped once the event is seen.
 */
export function readStreamToWaiting(url: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const request = http.get(url, { agent: false }, (response) => {
      if (response.statusCode !== 200) {
        response.resume();
        reject(new Error(`stream answered ${response.statusCode}`));
        return;
      }
      let tail = "";
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => {
        tail = tail.slice(-64) + chunk;
        if (tail.includes('"type":"session.waiting"')) {
          response.destroy();
          resolve();
        }
      });
      response.on("error", () => {});
      response.on("end", () => reject(new Error("stream ended before session.waiting")));
    });
    request.on("error", reject);
  });
}

/**
 * Reads an in-process stream response (`host.request`) until `session.waiting`, then cancels it
 * (a live stream never ends on its own). `onFirstChunk` runs when its first bytes arrive.
 */
export async function readResponseToWaiting(response: Response, onFirstChunk?: () => void): Promise<void> {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let tail = "";
  for (let first = true; !tail.includes('"type":"session.waiting"'); first = false) {
    const { value, done } = await reader.read();
    if (done) throw new Error("stream ended before session.waiting");
    if (first) onFirstChunk?.();
    tail = tail.slice(-64) + decoder.decode(value, { stream: true });
  }
  await reader.cancel();
}

/** POSTs `body` as JSON over `agent`: the parsed answer, or an error naming any status but 200 and the body. */
export function postJson(agent: http.Agent, url: string, body: unknown): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const data = JSON.stringify(body);
    const request = http.request(url, { method: "POST", agent, headers: { "content-type": "application/json", "content-length": Buffer.byteLength(data) } }, (response) => {
      let text = "";
      response.setEncoding("utf8").on("data", (chunk: string) => (text += chunk));
      response.on("end", () => (response.statusCode === 200 ? resolve(JSON.parse(text)) : reject(new Error(`${url} answered ${response.statusCode}: ${text}`))));
    });
    request.on("error", reject);
    request.end(data);
  });
}

/** The record of an idle `http` chat session after one turn, as the host leaves it, for benchmarks that write a store directly. */
export function idleChatRecord(sessionId: string, token: string, at: string): SessionRecord {
  return {
    sessionId,
    channel: "http",
    mode: "chat",
    owner: { authenticator: "localDevStrict", principalId: "local", principalType: "local" },
    continuationToken: token,
    status: "idle",
    turnCount: 1,
    createdAt: at,
    updatedAt: at,
  };
}

/** One stored event line of `sessionId`, in `turnId` unless `withTurn` is false (the session's own events). */
export function eventLine(sessionId: string, turnId: string, at: string): (index: number, type: string, data: Record<string, unknown>, withTurn?: boolean) => string {
  return (index, type, data, withTurn = true) => JSON.stringify({ type, index, sessionId, ...(withTurn ? { turnId } : {}), at, data });
}

/** What `bench/_load.ts turns` (and `a2a-turns`) prints. */
export interface TurnsResult {
  turns: number;
  errors: number;
  firstError?: string;
  turnsPerSecond: number;
  p50: number;
  p95: number;
}

/**
 * A subject's turns columns over its rounds: median turns/s, each round's, median p50, and the
 * median ratio to `baseline` in the same round. Any failed turn throws, saying `where` (`a2a`) and
 * `detail` (`sqlite, c=8`).
 */
export function turnsColumns<S extends string>(results: Record<S, TurnsResult[]>, subject: S, baseline: S, where: string, detail: string): string[] {
  const runs = results[subject];
  const failed = runs.reduce((sum, r) => sum + r.errors, 0);
  if (failed > 0) throw new Error(`${where}: ${failed} failed turns (${subject}, ${detail}): ${runs.find((r) => r.firstError)?.firstError}`);
  return [
    fmt(median(runs.map((r) => r.turnsPerSecond))),
    runs.map((r) => fmt(r.turnsPerSecond)).join(" / "),
    fmt(median(runs.map((r) => r.p50))),
    fmt(median(runs.map((r, round) => r.turnsPerSecond / results[baseline][round]!.turnsPerSecond))),
  ];
}

/** Calls `onLine` with each complete line `response` sends, and when (`Date.now()`) the chunk that completed it arrived. */
export function eachLine(response: http.IncomingMessage, onLine: (line: string, receivedAt: number) => void): void {
  let buffer = "";
  response.setEncoding("utf8").on("data", (chunk: string) => {
    const now = Date.now();
    buffer += chunk;
    for (let end = buffer.indexOf("\n"); end !== -1; end = buffer.indexOf("\n")) {
      const line = buffer.slice(0, end);
      buffer = buffer.slice(end + 1);
      onLine(line, now);
    }
  });
}
