/**
 * A live follower of a busy session: a client process follows the NDJSON stream over real
 * loopback HTTP while the server appends `--events` delta events in bursts of `--burst` (a turn
 * streaming text: each delta is its own append, not awaited one by one). Compares the host's
 * stream (`eventStreamResponse`: the lines available at once go out as one chunk) with a
 * baseline, in the same run, that writes one chunk per event over the same follow primitive.
 *
 *   npx node bench/follow.ts [--events=20000] [--burst=20] [--rounds=5]
 *
 * A chunk is one `write` to the socket (srvx's Node adapter writes each body chunk as it comes);
 * both servers count them with the same pass-through. The stream ends on a final
 * `session.completed` (task session), and every download is checked for its line count.
 * @module
 */
import { eventStreamResponse } from "../src/http/event-stream.ts";
import { EventLog } from "../src/engine/sessions/event-log.ts";
import { type EventDraft, isEventType } from "../src/base/events/vocabulary.ts";
import { followLog } from "../src/base/events/follow.ts";
import { createMemoryStorage } from "../src/base/storage/memory.ts";
import { alternate, fmt, machineLine, median, option, printTable, runClient, serveLoopback } from "./_util.ts";

interface Download {
  status: number;
  bytes: number;
  lines: number;
  lastIndex: number | null;
  ms: number;
}

interface Round {
  ms: number;
  chunks: number;
  lines: number;
}

const total = option("events", 20_000);
const burst = option("burst", 20);
const rounds = option("rounds", 5);
const subjects = ["one chunk per event (baseline)", "host stream (one chunk per batch)"] as const;
type Subject = (typeof subjects)[number];

const encoder = new TextEncoder();
const closing = { subscribe: () => () => {} };

console.log(`follow: ${total.toLocaleString("en-US")} events in bursts of ${burst}, ${rounds} rounds; ${machineLine()}`);

let log = new EventLog(createMemoryStorage(), Date.now);
let sessionId = "";
let chunks = 0;
let connected: () => void = () => {};

const server = await serveLoopback((request) => {
  const per = new URL(request.url).pathname === "/per-event";
  const body = per ? perEventStream(log, sessionId) : eventStreamResponse(log, sessionId, { startIndex: 0, follow: true, endOnTerminal: true, closing }).body!;
  connected();
  return new Response(body.pipeThrough(countChunks()), { headers: { "content-type": "application/x-ndjson" } });
});

try {
  const results = await alternate<Subject, Round>(
    subjects,
    rounds,
    async (subject, round) => {
      log = new EventLog(createMemoryStorage(), Date.now);
      sessionId = `ses_benchFollow${subject.length}r${round}`;
      chunks = 0;
      const ready = new Promise<void>((resolve) => (connected = resolve));
      const path = subject === "host stream (one chunk per batch)" ? "/host" : "/per-event";
      const download = runClient<Download>(["download", `${server.url}${path}`]);
      await ready;
      await writeSession(log, sessionId);
      const result = await download;
      if (result.status !== 200 || result.lines !== total + 1) throw new Error(`follow: ${subject} delivered ${result.lines} lines, expected ${total + 1}`);
      return { ms: result.ms, chunks, lines: result.lines };
    },
    (subject, round, r) => console.log(`  round ${round + 1} ${subject}: ${fmt(r.ms)} ms, ${r.chunks.toLocaleString("en-US")} chunks`),
  );
  const baseline = median(results["one chunk per event (baseline)"].map((r) => r.ms));
  const baselineChunks = median(results["one chunk per event (baseline)"].map((r) => r.chunks));
  printTable(
    ["stream", "chunks (median)", "events per chunk", "ms to deliver (median)", "per round ms", "chunk ratio to baseline", "time ratio to baseline"],
    subjects.map((subject) => {
      const runs = results[subject];
      const ms = median(runs.map((r) => r.ms));
      const count = median(runs.map((r) => r.chunks));
      return [
        subject,
        count.toLocaleString("en-US"),
        fmt(runs[0]!.lines / count),
        fmt(ms),
        runs.map((r) => fmt(r.ms)).join(" / "),
        fmt(count / baselineChunks),
        fmt(ms / baseline),
      ];
    }),
  );
} finally {
  await server.close();
}

// --- internals ---

/** Appends the events as a streaming turn does: a burst of un-awaited appends, then the next. */
async function writeSession(target: EventLog, id: string): Promise<void> {
  for (let n = 0; n < total; n += burst) {
    const appends: Array<Promise<unknown>> = [];
    for (let i = n; i < Math.min(total, n + burst); i++) {
      const draft: EventDraft = { type: "message.appended", turnId: "turn_bench", data: { delta: `word ${i} ` } };
      appends.push(target.append(id, [draft]));
    }
    await Promise.all(appends);
    // Let the socket drain between bursts, as model tokens arrive over time.
    await new Promise((resolve) => setImmediate(resolve));
  }
  await target.append(id, [{ type: "session.completed", data: {} }]);
}

/** The baseline: the same follow, every event its own chunk. */
function perEventStream(target: EventLog, id: string): ReadableStream<Uint8Array> {
  const stop = new AbortController();
  const batches = followLog(target, id, { from: 0, live: true, signal: stop.signal });
  let pending: string[] = [];
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (pending.length === 0) {
        const { value, done } = await batches.next();
        if (done) return controller.close();
        pending = [...value.lines];
      }
      const line = pending.shift()!;
      controller.enqueue(encoder.encode(`${line}\n`));
      if (isEventType(line, "session.completed")) {
        stop.abort();
        void batches.return(undefined);
        controller.close();
      }
    },
    cancel() {
      stop.abort();
    },
  });
}

function countChunks(): TransformStream<Uint8Array, Uint8Array> {
  return new TransformStream({
    transform(chunk, controller) {
      if (chunk.byteLength > 0) chunks++;
      controller.enqueue(chunk);
    },
  });
}
