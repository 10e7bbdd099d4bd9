/**
 * A trace of one c=1 turn, the unit of `bench/turns.ts` (`POST /v1/session {"message":"hi"}`, then
 * its live stream read to `session.waiting`), over real loopback HTTP: every timer and
 * `setImmediate` scheduled, every message to and from the sqlite writer thread, every storage call
 * and commit, each request's arrival and answer, and each stream chunk the client receives, with
 * the time it waited. The instrumentation lives only in this script (it wraps the timer globals,
 * `Worker.prototype`, the storage driver and `host.fetch` before the traced turn), so the hot path
 * carries no tracing code.
 *
 *   npx node bench/trace-turn.ts [--store=sqlite|memory] [--warm=30] [--turns=20] [--thread-only]
 *
 * `--thread-only`: the sqlite driver sends every commit to its writer thread (`inlineCommits: false`).
 *
 * It runs `--warm` untraced turns first (JIT, statement caches), then traces `--turns` turns and
 * prints the timeline of the median one (by client latency), followed by a summary of where the
 * time of all traced turns went (medians).
 * @module
 */
import http from "node:http";
import { join } from "node:path";
import { Worker } from "node:worker_threads";
import { serveNode } from "../adapters/node.ts";
import { createSqliteStorage } from "../drivers/sqlite/index.ts";
import { createMemoryStorage } from "../src/base/storage/memory.ts";
import type { StorageDriver } from "../src/base/storage/types.ts";
import { createHost } from "../src/index.ts";
import { fmt, machineLine, median, option, scriptedProject, tempDir } from "./_util.ts";

const store = process.argv.find((arg) => arg.startsWith("--store="))?.slice("--store=".length) ?? "sqlite";
if (store !== "sqlite" && store !== "memory") throw new Error("trace-turn: --store must be sqlite or memory");
const warm = option("warm", 30);
const traced = option("turns", 20);

interface Mark {
  t: number;
  kind: string;
  what: string;
  /** How long the thing waited or took, when it has an end (ms). */
  wait?: number;
}

let marks: Mark[] | undefined;
let origin = 0;
const now = (): number => performance.now() - origin;
function mark(kind: string, what: string, wait?: number): void {
  marks?.push({ t: now(), kind, what, ...(wait === undefined ? {} : { wait }) });
}

/** The first frame of the project's own code that scheduled something. */
function site(): string {
  const frames = (new Error().stack ?? "").split("\n").slice(3);
  const own = frames.find((frame) => /\/(src|drivers|adapters)\//.test(frame) && !frame.includes("trace-turn"));
  const frame = own ?? frames.find((f) => !f.includes("trace-turn") && !f.includes("node:internal")) ?? frames[0] ?? "";
  const match = /([\w.-]+\/[\w.-]+\.ts):(\d+)/.exec(frame) ?? /\(?([^()\s]+):(\d+):\d+\)?$/.exec(frame);
  return match ? `${match[1]}:${match[2]}` : frame.trim();
}

// --- timers and hand-offs ---

const realSetTimeout = globalThis.setTimeout;
const realSetImmediate = globalThis.setImmediate;
globalThis.setTimeout = ((fn: (...a: unknown[]) => void, ms?: number, ...args: unknown[]) => {
  if (!marks) return realSetTimeout(fn, ms, ...args);
  const from = site();
  const at = now();
  mark("timer", `setTimeout(${ms ?? 0}) from ${from}`);
  return realSetTimeout((...a: unknown[]) => {
    mark("timer fired", `setTimeout(${ms ?? 0}) from ${from}`, now() - at);
    fn(...a);
  }, ms, ...args);
}) as typeof setTimeout;
globalThis.setImmediate = ((fn: (...a: unknown[]) => void, ...args: unknown[]) => {
  if (!marks) return realSetImmediate(fn, ...args);
  const from = site();
  const at = now();
  mark("immediate", `setImmediate from ${from}`);
  return realSetImmediate((...a: unknown[]) => {
    mark("immediate ran", `setImmediate from ${from}`, now() - at);
    fn(...a);
  }, ...args);
}) as typeof setImmediate;

const sentAt = new Map<number, number>();
const realPost = Worker.prototype.postMessage;
Worker.prototype.postMessage = function (this: Worker, message: unknown, ...rest: unknown[]) {
  const id = (message as { id?: number }).id;
  if (marks && typeof id === "number") {
    sentAt.set(id, now());
    const ops = (message as { ops?: unknown[] }).ops?.length ?? 0;
    mark("thread", `post group #${id} (${ops} writes) to the writer thread`);
  }
  return (realPost as (...a: unknown[]) => void).call(this, message, ...rest);
} as typeof Worker.prototype.postMessage;
const realEmit = Worker.prototype.emit;
Worker.prototype.emit = function (this: Worker, event: string | symbol, ...args: unknown[]) {
  const id = (args[0] as { id?: number } | undefined)?.id;
  if (marks && event === "message" && typeof id === "number") {
    const sent = sentAt.get(id);
    mark("thread", `reply of group #${id} on the event loop`, sent === undefined ? undefined : now() - sent);
  }
  return realEmit.call(this, event, ...args);
} as typeof Worker.prototype.emit;

// --- storage ---

function tracing(storage: StorageDriver): StorageDriver {
  return new Proxy(storage, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (typeof value !== "function" || property === "follow" || property === "read") return value;
      return (...args: unknown[]) => {
        if (!marks) return (value as (...a: unknown[]) => unknown).apply(target, args);
        const name = String(property);
        const what = name === "commit" ? `commit ${describeBatch(args[0])}` : `${name} ${String(args[0] ?? "")}`;
        const begin = now();
        mark("storage", `${what} sent`);
        const result = (value as (...a: unknown[]) => unknown).apply(target, args);
        if (result instanceof Promise) {
          return result.then((v) => {
            mark("storage done", what, now() - begin);
            return v;
          });
        }
        return result;
      };
    },
  });
}

function describeBatch(batch: unknown): string {
  const { records = [], appends = [] } = batch as { records?: Array<{ key: string }>; appends?: Array<{ log: string; lines: string[] }> };
  const types = appends.flatMap(({ log, lines }) => (log.endsWith("/events") ? lines.map((line) => /"type":"([^"]+)"/.exec(line)?.[1] ?? "?") : [`${log.split("/").pop()}+${lines.length}`]));
  return `[${types.join(", ")}${records.length > 0 ? `; ${records.length} record${records.length > 1 ? "s" : ""}` : ""}]`;
}

// --- one turn, traced from the client's side ---

function request(url: string, agent: http.Agent | false, method: string, body?: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const begin = now();
    const req = http.request(url, { method, agent, headers: body === undefined ? {} : { "content-type": "application/json", "content-length": Buffer.byteLength(body) } }, (response) => {
      mark("client", `${method} answered ${response.statusCode} (headers)`, now() - begin);
      let text = "";
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => (text += chunk));
      response.on("end", () => {
        mark("client", `${method} body read`, now() - begin);
        resolve(text);
      });
    });
    req.on("error", reject);
    req.end(body);
  });
}

function stream(url: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const begin = now();
    const req = http.get(url, { agent: false }, (response) => {
      mark("client", `stream answered ${response.statusCode} (headers)`, now() - begin);
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => {
        const types = [...chunk.matchAll(/"type":"([^"]+)"/g)].map((m) => m[1]);
        if (types.length > 0) mark("client", `stream chunk: ${types.join(", ")}`);
        if (chunk.includes('"type":"session.waiting"')) {
          response.destroy();
          resolve();
        }
      });
      response.on("error", () => {});
    });
    req.on("error", reject);
  });
}

async function oneTurn(base: string, agent: http.Agent): Promise<void> {
  mark("client", "POST /v1/session sent");
  const { sessionId } = JSON.parse(await request(`${base}/v1/session`, agent, "POST", JSON.stringify({ message: "hi" }))) as { sessionId: string };
  mark("client", "GET stream sent");
  await stream(`${base}/v1/session/${sessionId}/stream`);
  mark("client", "turn done (session.waiting read)");
}

// --- run ---

const dir = store === "sqlite" ? await tempDir("trace") : undefined;
const storage = tracing(dir ? createSqliteStorage({ path: join(dir.path, "state.db"), inlineCommits: !process.argv.includes("--thread-only") }) : createMemoryStorage());
const host = createHost({ agents: [{ slug: "bench", project: scriptedProject(), storage }] });
await host.ready();
const fetchHost = host.fetch.bind(host);
const served = await serveNode(
  {
    fetch: async (req: Request, context?: unknown) => {
      const path = new URL(req.url).pathname.replace(/\/bench\/v1\/session\/[^/]+/, "/bench/v1/session/:id");
      const begin = now();
      mark("server", `${req.method} ${path} reached host.fetch`);
      const response = await (fetchHost as (r: Request, c?: unknown) => Promise<Response>)(req, context);
      mark("server", `${req.method} ${path} answered ${response.status}`, now() - begin);
      return response;
    },
  },
  { port: 0, hostname: "127.0.0.1", silent: true },
);
const base = `${served.url}/bench`;
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
console.log(`trace-turn: store ${store}${store === "sqlite" ? " (WAL, synchronous=FULL, writer thread)" : ""}, ${warm} warm-up turns, ${traced} traced; ${machineLine()}`);
for (let i = 0; i < warm; i++) await oneTurn(base, agent);

const traces: Mark[][] = [];
for (let i = 0; i < traced; i++) {
  marks = [];
  origin = performance.now();
  await oneTurn(base, agent);
  traces.push(marks);
  marks = undefined;
  // Let the turn's tail (the lease's release, the marker's removal) settle outside the trace.
  await new Promise((resolve) => realSetTimeout(resolve, 20));
}
agent.destroy();
await served.close(true);
await host.close();
await dir?.cleanup();

const total = (trace: Mark[]): number => trace.find((m) => m.what.startsWith("turn done"))!.t;
const ordered = [...traces].sort((a, b) => total(a) - total(b));
const typical = ordered[(ordered.length - 1) >> 1]!;
console.log(`\nThe median traced turn (${fmt(total(typical))} ms, client side), every mark in order:\n`);
console.log("| t ms | kind | what | waited ms |");
console.log("|---:|---|---|---:|");
for (const m of typical) console.log(`| ${m.t.toFixed(3)} | ${m.kind} | ${m.what.replaceAll("|", "\\|")} | ${m.wait === undefined ? "" : m.wait.toFixed(3)} |`);

// Where the time of every traced turn went (medians over the traced turns).
const sum = (trace: Mark[], kind: string, test: (m: Mark) => boolean = () => true): number =>
  trace.filter((m) => m.kind === kind && test(m)).reduce((s, m) => s + (m.wait ?? 0), 0);
const count = (trace: Mark[], kind: string): number => trace.filter((m) => m.kind === kind).length;
const at = (trace: Mark[], prefix: string): number => trace.find((m) => m.what.startsWith(prefix))?.t ?? Number.NaN;
const rows: Array<[string, (trace: Mark[]) => number]> = [
  ["turn, client side (ms)", total],
  ["POST answered, server time in host.fetch (ms)", (t) => t.find((m) => m.kind === "server" && m.what.startsWith("POST") && m.wait !== undefined)?.wait ?? Number.NaN],
  ["POST sent → body read (ms)", (t) => at(t, "POST body read")],
  ["GET stream sent → first event chunk (ms)", (t) => at(t, "stream chunk") - at(t, "GET stream sent")],
  ["storage commits (count)", (t) => t.filter((m) => m.kind === "storage done" && m.what.startsWith("commit")).length],
  ["storage commits, summed wait (ms)", (t) => sum(t, "storage done", (m) => m.what.startsWith("commit"))],
  ["other storage writes (count)", (t) => t.filter((m) => m.kind === "storage done" && /^(set|delete|append|acquireLease|releaseLease)/.test(m.what)).length],
  ["writer-thread round trips (count)", (t) => t.filter((m) => m.kind === "thread" && m.what.startsWith("reply")).length],
  ["writer-thread round trips, summed (ms)", (t) => sum(t, "thread")],
  ["setTimeout scheduled (count)", (t) => count(t, "timer")],
  ["setTimeout waits, summed (ms)", (t) => sum(t, "timer fired")],
  ["setImmediate scheduled (count)", (t) => count(t, "immediate")],
  ["setImmediate waits, summed (ms)", (t) => sum(t, "immediate ran")],
  ["stream chunks received (count)", (t) => t.filter((m) => m.what.startsWith("stream chunk")).length],
];
console.log(`\nOver all ${traced} traced turns (median of each figure):\n`);
console.log("| figure | median |");
console.log("|---|---:|");
for (const [name, figure] of rows) console.log(`| ${name} | ${fmt(median(traces.map(figure)))} |`);
