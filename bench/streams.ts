/**
 * Many open streams on one process (docs/design/listing.md "Streams"): 10,000 concurrent
 * followers (half NDJSON, half Server-Sent Events) of 1,000 live sessions, with the client in its
 * own process (`bench/_streams-client.ts`):
 *
 * - per-stream memory: the server's heap + external memory (after a full GC) with every stream
 *   open, minus the same with none, divided by the streams; RSS likewise;
 * - event delivery: follow-ups at 100 turns/s round-robin over the sessions, and for every event
 *   each follower receives, receive time minus the event's `at`; against the same turns with one
 *   follower per session (1,000 streams) in the same run;
 * - reconnect: a stream of a 10,000-event session opened from index 0, the time until its last
 *   stored event arrives, then until the first live event of a follow-up; against a short session.
 *
 *   npx node bench/streams.ts [--sessions=1000] [--per=10] [--rate=100] [--seconds=10] [--store=sqlite|memory]
 * @module
 */
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import v8 from "node:v8";
import vm from "node:vm";
import { serveNode } from "../adapters/node.ts";
import { createSqliteStorage } from "../drivers/sqlite/index.ts";
import { createMemoryStorage } from "../src/base/storage/memory.ts";
import type { StorageDriver } from "../src/base/storage/types.ts";
import { SessionStore } from "../src/engine/sessions/session-store.ts";
import { createHost } from "../src/index.ts";
import { eventLine, fmt, idleChatRecord, machineLine, option, printTable, runClient, scriptedProject, tempDir } from "./_util.ts";

v8.setFlagsFromString("--expose-gc");
const gc = vm.runInNewContext("gc") as () => void;

const CLIENT = fileURLToPath(new URL("./_streams-client.ts", import.meta.url));
const sessions = option("sessions", 1_000);
const per = option("per", 10);
const rate = option("rate", 100);
const seconds = option("seconds", 10);
const store = process.argv.find((arg) => arg.startsWith("--store="))?.slice("--store=".length) ?? "sqlite";
const quiet = { info() {}, warn() {}, error() {} };

interface FanResult {
  streams: number;
  failed: number;
  turns: number;
  turnErrors: number;
  achievedRate: number;
  samples: number;
  p50: number;
  p99: number;
  max: number;
}

interface ReplayResult {
  events: number;
  rounds: number;
  replayP50: number;
  replayMax: number;
  firstLiveP50: number;
  firstLiveMax: number;
}

console.log(`streams: ${sessions} sessions × ${per} followers, ${rate} turns/s for ${seconds} s, store ${store}${store === "sqlite" ? " (synchronous=FULL)" : ""}; ${machineLine()}`);
const dir = await tempDir("streams");
try {
  const storage: StorageDriver = store === "memory" ? createMemoryStorage() : createSqliteStorage({ path: join(dir.path, "state.db") });
  const long = await seedLongSession(storage, 10_000);
  const short = await seedLongSession(storage, 10);
  const host = createHost({ agents: [{ slug: "bench", project: scriptedProject(), storage }], logger: quiet });
  await host.ready();
  const server = await serveNode(host, { port: 0, hostname: "127.0.0.1", silent: true });
  const base = `${server.url}/bench`;
  try {
    const started = performance.now();
    const live = await createSessions(base, sessions);
    console.log(`  ${sessions} sessions created and idle in ${fmt((performance.now() - started) / 1000)} s`);
    const file = join(dir.path, "sessions.json");
    await writeFile(file, JSON.stringify(live));

    const baseline = await fanRound(file, 1, "1 follower per session");
    const fanned = await fanRound(file, per, `${per} followers per session`);

    const replays: Record<string, ReplayResult> = {};
    // Each replay round adds a turn to its session: the short one starts at 10 events and stays small.
    for (const [name, session] of [["short session", short], ["10,000-event session", long], ["short session ", short], ["10,000-event session ", long]] as const) {
      const r = await runClient<ReplayResult>(["replay", base, session.sessionId, session.token, 5], undefined, CLIENT);
      // The client rotated the token: the next run reads it back.
      session.token = ((await (await fetch(`${base}/v1/session/${session.sessionId}`)).json()) as { session: { continuationToken: string } }).session.continuationToken;
      console.log(`  replay ${name.trim()}: ${r.events} events, replay p50 ${fmt(r.replayP50)} ms (max ${fmt(r.replayMax)}), first live event p50 ${fmt(r.firstLiveP50)} ms (max ${fmt(r.firstLiveMax)})`);
      replays[name.trim()] = r;
    }

    printTable(
      ["measure", "1 follower per session (baseline)", `${per} followers per session`, "ratio"],
      [
        ["streams open", String(baseline.result.streams), String(fanned.result.streams), ""],
        ["heap + external per stream (KB)", fmt(baseline.perStream / 1024), fmt(fanned.perStream / 1024), fmt(fanned.perStream / baseline.perStream, 2)],
        ["RSS per stream (KB)", fmt(baseline.rssPerStream / 1024), fmt(fanned.rssPerStream / 1024), fmt(fanned.rssPerStream / baseline.rssPerStream, 2)],
        ["turns sent (achieved turns/s)", `${baseline.result.turns} (${fmt(baseline.result.achievedRate)})`, `${fanned.result.turns} (${fmt(fanned.result.achievedRate)})`, ""],
        ["events delivered", String(baseline.result.samples), String(fanned.result.samples), fmt(fanned.result.samples / baseline.result.samples, 2)],
        ["delivery p50 (ms)", fmt(baseline.result.p50), fmt(fanned.result.p50), fmt(fanned.result.p50 / Math.max(baseline.result.p50, 1), 2)],
        ["delivery p99 (ms)", fmt(baseline.result.p99), fmt(fanned.result.p99), fmt(fanned.result.p99 / Math.max(baseline.result.p99, 1), 2)],
        ["delivery max (ms)", fmt(baseline.result.max), fmt(fanned.result.max), ""],
      ],
    );
    const shortR = replays["short session"]!;
    const longR = replays["10,000-event session"]!;
    printTable(
      ["reconnect from index 0", `${shortR.events}-event session (baseline)`, `${longR.events.toLocaleString("en-US")}-event session`, "ratio"],
      [
        ["replay to the last stored event p50 (ms)", fmt(shortR.replayP50), fmt(longR.replayP50), fmt(longR.replayP50 / shortR.replayP50, 2)],
        ["then the first live event p50 (ms)", fmt(shortR.firstLiveP50), fmt(longR.firstLiveP50), fmt(longR.firstLiveP50 / shortR.firstLiveP50, 2)],
        ["reconnect → first live event p50 (ms)", fmt(shortR.replayP50 + shortR.firstLiveP50), fmt(longR.replayP50 + longR.firstLiveP50), ""],
      ],
    );
  } finally {
    await server.close(true);
    await host.close();
  }

  /** Opens `followers` streams per session, samples memory once all are open, then drives the turns. */
  async function fanRound(sessionsFile: string, followers: number, name: string): Promise<{ result: FanResult; perStream: number; rssPerStream: number }> {
    const before = memory();
    let after = before;
    const result = await runClient<FanResult>(["fan", base, sessionsFile, followers, rate, seconds], (mark, send) => {
      if (!mark.startsWith("connected")) return;
      after = memory();
      send("go");
    }, CLIENT);
    // The next round follows on from where these turns left the sessions.
    const current = await Promise.all(
      (JSON.parse(await readFile(sessionsFile, "utf8")) as Array<{ sessionId: string }>).map(async (s) => {
        const events = (await (await fetch(`${base}/v1/session/${s.sessionId}/events`)).text()).trim().split("\n").length;
        const { session } = (await (await fetch(`${base}/v1/session/${s.sessionId}`)).json()) as { session: { continuationToken: string } };
        return { sessionId: s.sessionId, token: session.continuationToken, from: events };
      }),
    );
    await writeFile(sessionsFile, JSON.stringify(current));
    const perStream = (after.heap - before.heap) / Math.max(result.streams, 1);
    const rssPerStream = (after.rss - before.rss) / Math.max(result.streams, 1);
    console.log(`  ${name}: ${result.streams} streams (${result.failed} failed), ${fmt(perStream / 1024)} KB heap+external and ${fmt(rssPerStream / 1024)} KB RSS per stream; ${result.turns} turns, ${result.samples} deliveries, p50 ${fmt(result.p50)} ms, p99 ${fmt(result.p99)} ms, max ${fmt(result.max)} ms`);
    return { result, perStream, rssPerStream };
  }
} finally {
  await dir.cleanup();
}

// --- internals ---

function memory(): { heap: number; rss: number } {
  gc();
  gc();
  const usage = process.memoryUsage();
  return { heap: usage.heapUsed + usage.external, rss: usage.rss };
}

/** Creates sessions 20 at a time and waits until each is idle; answers where each one's stream ends. */
async function createSessions(base: string, count: number): Promise<Array<{ sessionId: string; token: string; from: number }>> {
  const out: Array<{ sessionId: string; token: string; from: number }> = [];
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < count) {
      next++;
      const created = (await (await fetch(`${base}/v1/session`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ message: "hi" }) })).json()) as {
        sessionId: string;
        continuationToken: string;
      };
      let lines: string[] = [];
      for (let i = 0; i < 500; i++) {
        lines = (await (await fetch(`${base}/v1/session/${created.sessionId}/events`)).text()).trim().split("\n");
        if (lines.at(-1)?.includes('"session.waiting"')) break;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      out.push({ sessionId: created.sessionId, token: created.continuationToken, from: lines.length });
    }
  };
  await Promise.all(Array.from({ length: 20 }, worker));
  return out;
}

/** An idle session whose log already holds `events` events (one long turn), written before the host starts. */
async function seedLongSession(storage: StorageDriver, events: number): Promise<{ sessionId: string; token: string }> {
  const sessionId = `ses_streams${events}`;
  const token = `http:streams${String(events).padStart(24, "0")}`;
  const at = new Date().toISOString();
  const turnId = "turn_streams0000001";
  const record = idleChatRecord(sessionId, token, at);
  const store = new SessionStore(storage, Date.now);
  await storage.commit({ records: [...store.newRecordWrites(record), store.tokenWrite("http", token, sessionId)] });
  const line = eventLine(sessionId, turnId, at);
  const lines = [line(0, "session.started", { mode: "chat", channel: "http" }, false), line(1, "message.received", { text: "hi" }), line(2, "turn.started", {}), line(3, "step.started", { stepIndex: 0 })];
  while (lines.length < events - 4) lines.push(line(lines.length, "message.appended", { delta: "a few words of a long reply " }));
  const usage = { inputTokens: 3, outputTokens: 2, cacheReadTokens: 0, cacheWriteTokens: 0 };
  lines.push(
    line(lines.length, "message.completed", { text: "…", finishReason: "stop" }),
    line(lines.length + 1, "step.completed", { stepIndex: 0, durationMs: 3, finishReason: "stop" }),
    line(lines.length + 2, "turn.completed", { usage, model: "scripted" }),
    line(lines.length + 3, "session.waiting", {}, false),
  );
  for (let i = 0; i < lines.length; i += 1000) await storage.append(`sessions/${sessionId}/events`, lines.slice(i, i + 1000));
  return { sessionId, token };
}
