/**
 * Replay of a long session: `GET /<slug>/v1/session/<id>/events` of a 100,000-event session on
 * the sqlite driver, over real loopback HTTP, reading every byte. The baseline is a bare srvx
 * handler that streams the same raw rows out of the same database file (`SELECT line ... ORDER BY
 * idx` in pages of 1024, joined with newlines), in the same run.
 *
 *   npx node bench/replay.ts [--events=100000] [--rounds=7]
 *
 * The session is written straight through the sqlite driver (no turns run): event lines shaped as
 * the host writes them, with contiguous indexes from 0, plus its `sessions/<id>/record`. Every
 * download is checked for its line count and last index.
 * @module
 */
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { serveNode } from "../adapters/node.ts";
import { createSqliteStorage } from "../drivers/sqlite/index.ts";
import { createHost } from "../src/index.ts";
import type { SessionRecord } from "../src/base/definitions/sessions.ts";
import {
  alternate,
  fmt,
  machineLine,
  median,
  option,
  printTable,
  runClient,
  scriptedProject,
  serveLoopback,
  tempDir,
} from "./_util.ts";

interface Download {
  status: number;
  bytes: number;
  lines: number;
  lastIndex: number | null;
  ms: number;
}

const total = option("events", 100_000);
const rounds = option("rounds", 7);
const sessionId = "ses_benchReplay000000001";
const dir = await tempDir("replay");

try {
  console.log(`replay: ${total.toLocaleString("en-US")} events, ${rounds} rounds; ${machineLine()}`);
  const buildStart = performance.now();
  const bytes = await buildSession(dir.path);
  console.log(`  built ${fmt(bytes / 1e6)} MB of events in ${fmt((performance.now() - buildStart) / 1000)} s`);

  const raw = new DatabaseSync(join(dir.path, "state.db"), { readOnly: true });
  const page = raw.prepare("SELECT line FROM logs WHERE log = ? AND idx >= ? AND idx < ? ORDER BY idx");
  const encoder = new TextEncoder();
  const bare = await serveLoopback(() => {
    let next = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        const rows = page.all(`sessions/${sessionId}/events`, next, next + 1024) as Array<{ line: string }>;
        if (rows.length === 0) return controller.close();
        next += rows.length;
        controller.enqueue(encoder.encode(`${rows.map((row) => row.line).join("\n")}\n`));
      },
    });
    return new Response(body, { headers: { "content-type": "application/x-ndjson" } });
  });
  const host = createHost({ agents: [{ slug: "bench", project: scriptedProject(), storage: createSqliteStorage({ path: join(dir.path, "state.db") }) }] });
  await host.ready();
  const server = await serveNode(host, { port: 0, hostname: "127.0.0.1", silent: true });
  const urls = { "raw rows (bare srvx)": `${bare.url}/`, "host /events": `${server.url}/bench/v1/session/${sessionId}/events` };
  const subjects = Object.keys(urls) as Array<keyof typeof urls>;

  try {
    // One unmeasured pass each, so the page cache and JIT are warm for every measured round.
    for (const subject of subjects) check(subject, await runClient<Download>(["download", urls[subject]]), bytes);
    const results = await alternate(
      subjects,
      rounds,
      async (subject) => check(subject, await runClient<Download>(["download", urls[subject]]), bytes),
      (subject, round, r) => console.log(`  round ${round + 1} ${subject}: ${fmt(r.ms)} ms, ${fmt(mbps(r))} MB/s`),
    );
    const baseline = median(results["raw rows (bare srvx)"].map(mbps));
    printTable(
      ["server", "MB/s (median)", "events/s (median)", "ms (median)", "per round ms", "bytes", "lines", "last index", "ratio to bare"],
      subjects.map((subject) => {
        const runs = results[subject];
        const rate = median(runs.map(mbps));
        return [
          subject,
          fmt(rate),
          fmt(median(runs.map((r) => r.lines / (r.ms / 1000)))),
          fmt(median(runs.map((r) => r.ms))),
          runs.map((r) => fmt(r.ms)).join(" / "),
          runs[0]!.bytes.toLocaleString("en-US"),
          runs[0]!.lines.toLocaleString("en-US"),
          String(runs[0]!.lastIndex),
          fmt(rate / baseline),
        ];
      }),
    );
  } finally {
    await server.close(true);
    await host.close();
    await bare.close();
    raw.close();
  }
} finally {
  await dir.cleanup();
}

// --- internals ---

function mbps(download: Download): number {
  return download.bytes / 1e6 / (download.ms / 1000);
}

function check(subject: string, download: Download, bytes: number): Download {
  if (download.status !== 200 || download.lines !== total || download.lastIndex !== total - 1 || download.bytes !== bytes) {
    throw new Error(
      `replay: ${subject} answered ${download.status} with ${download.lines} lines (${download.bytes} bytes), last index ${download.lastIndex}; expected ${total} lines (${bytes} bytes) ending at ${total - 1}`,
    );
  }
  return download;
}

/** Writes the record and `total` event lines through the driver; resolves with the log's bytes. */
async function buildSession(root: string): Promise<number> {
  const storage = createSqliteStorage({ path: join(root, "state.db") });
  const start = Date.parse("2026-01-01T09:00:00.000Z");
  const lines = realisticEvents(sessionId, total, start);
  let bytes = 0;
  for (let from = 0; from < lines.length; from += 10_000) {
    const batch = lines.slice(from, from + 10_000);
    const first = await storage.append(`sessions/${sessionId}/events`, batch, from);
    if (first !== from) throw new Error(`replay: append landed at ${first}, expected ${from}`);
    for (const line of batch) bytes += Buffer.byteLength(line) + 1;
  }
  const at = new Date(start).toISOString();
  const record: SessionRecord = {
    sessionId,
    channel: "http",
    mode: "chat",
    owner: { authenticator: "localDevStrict", principalId: "local", principalType: "local" },
    continuationToken: "http:benchReplayToken00000000000000000",
    status: "idle",
    turnCount: Math.ceil(total / 12),
    createdAt: at,
    updatedAt: new Date(start + total * 40).toISOString(),
  };
  await storage.set(`sessions/${sessionId}/record`, JSON.stringify(record));
  await storage.close();
  return bytes;
}

/**
 * Event lines in the host's envelope and key order, cycling through the events of a chat turn
 * with streamed text: received, started, step, deltas, completed, usage, waiting.
 */
function realisticEvents(id: string, count: number, startMs: number): string[] {
  const lines: string[] = [];
  const words = "the quick brown fox jumps over the lazy dog while the host appends every event durably".split(" ");
  let turn = 0;
  let turnId = "";
  const step = 0;
  for (let index = 0; index < count; index++) {
    const at = new Date(startMs + index * 40).toISOString();
    const line = (type: string, data: Record<string, unknown>, withTurn = true) =>
      JSON.stringify({ type, index, sessionId: id, ...(withTurn ? { turnId } : {}), at, data });
    if (index === 0) {
      lines.push(line("session.started", { mode: "chat", channel: "http" }, false));
      continue;
    }
    const phase = (index - 1) % 12;
    if (phase === 0) {
      turn++;
      turnId = `turn_bench${String(turn).padStart(11, "0")}`;
      lines.push(line("message.received", { text: `question number ${turn}: ${words.slice(0, 8).join(" ")}?` }));
    } else if (phase === 1) lines.push(line("turn.started", {}));
    else if (phase === 2) lines.push(line("step.started", { stepIndex: step }));
    else if (phase < 8) lines.push(line("message.appended", { delta: `${words.slice(phase, phase + 6).join(" ")} ` }));
    else if (phase === 8) lines.push(line("message.completed", { text: words.join(" "), finishReason: "stop" }));
    else if (phase === 9) lines.push(line("step.completed", { stepIndex: step, durationMs: 812, finishReason: "stop" }));
    else if (phase === 10) {
      const usage = { inputTokens: 40 + turn, outputTokens: 22, cacheReadTokens: 0, cacheWriteTokens: 0 };
      lines.push(line("turn.completed", { usage, model: "scripted" }));
    } else lines.push(line("session.waiting", {}, false));
  }
  return lines;
}
