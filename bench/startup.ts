/**
 * Start-up with many stored sessions: the real CLI, `agent-serve serve <project> --port 0
 * --state-root <root> --mode single`, on a state root holding 10,000 sessions against an empty
 * one, in the same run. Measures the time from spawn to the first successful `GET /v1/health`
 * and the server's resident memory once ready (VmRSS, and the peak VmHWM, from /proc).
 *
 *   npx node bench/startup.ts [--sessions=10000] [--rounds=5]
 *
 * Target: start-up does not read every session, so time and RSS with 10k ≈ with 0. For context it
 * also times `GET /v1/sessions` on the 10k root: the first request indexes the stored sessions
 * (written without the listing index), the later ones read one page.
 * @module
 */
import { spawnSync } from "node:child_process";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { createSqliteStorage } from "../drivers/sqlite/index.ts";
import { alternate, eventLine, fmt, idleChatRecord, machineLine, median, option, printTable, tempDir } from "./_util.ts";
import { serveCli, stopCli } from "./_util.ts";

const sessions = option("sessions", 10_000);
const rounds = option("rounds", 5);
const dir = await tempDir("startup");

try {
  console.log(`startup: ${sessions.toLocaleString("en-US")} stored sessions vs 0, ${rounds} rounds; ${machineLine()}`);
  const project = join(dir.path, "project");
  await mkdir(join(project, "bot"), { recursive: true });
  await writeFile(join(project, "bot", "instructions.md"), "You are a benchmark agent.\n");
  await writeFile(join(project, "package.json"), `${JSON.stringify({ name: "bench-agent", private: true })}\n`);
  const roots = { "0 sessions": join(dir.path, "empty"), [`${sessions} sessions`]: join(dir.path, "full") };
  const subjects = Object.keys(roots);
  await mkdir(roots["0 sessions"]!, { recursive: true });
  const buildStart = performance.now();
  await writeSessions(roots[subjects[1]!]!, sessions);
  // Written without fsync for speed; flush now so kernel writeback does not land in a round.
  spawnSync("sync");
  console.log(`  wrote ${sessions} sessions in ${fmt((performance.now() - buildStart) / 1000)} s`);

  // One unmeasured start, so both subjects meet a warm module cache.
  await stopCli(await serveCli(project, roots["0 sessions"]!));
  const results = await alternate(
    subjects,
    rounds,
    async (subject) => {
      const started = await serveCli(project, roots[subject]!);
      await stopCli(started);
      return started;
    },
    (subject, round, r) =>
      console.log(`  round ${round + 1} ${subject}: ready in ${fmt(r.readyMs)} ms, RSS ${fmt(r.rssMb)} MB (peak ${fmt(r.peakMb)} MB)`),
  );
  const base = results["0 sessions"]!;
  printTable(
    ["state root", "ready ms (median)", "per round ms", "RSS MB (median)", "peak RSS MB (median)", "time ratio", "RSS ratio"],
    subjects.map((subject) => {
      const runs = results[subject]!;
      return [
        subject,
        fmt(median(runs.map((r) => r.readyMs))),
        runs.map((r) => fmt(r.readyMs)).join(" / "),
        fmt(median(runs.map((r) => r.rssMb))),
        fmt(median(runs.map((r) => r.peakMb))),
        fmt(median(runs.map((r) => r.readyMs)) / median(base.map((r) => r.readyMs))),
        fmt(median(runs.map((r) => r.rssMb)) / median(base.map((r) => r.rssMb))),
      ];
    }),
  );

  // For context: the listing is a page of the index (docs/design/listing.md); these sessions were
  // written without it, so the first request indexes them once and the later ones read a page.
  const server = await serveCli(project, roots[subjects[1]!]!);
  try {
    const times: number[] = [];
    let size = 0;
    for (let i = 0; i < 5; i++) {
      const begin = performance.now();
      const response = await fetch(`${server.url}/v1/sessions`);
      const text = await response.text();
      times.push(performance.now() - begin);
      const listed = (JSON.parse(text) as { sessions?: unknown[] }).sessions?.length;
      if (response.status !== 200 || listed !== Math.min(sessions, 50)) throw new Error(`startup: /v1/sessions answered ${response.status} with ${listed} sessions`);
      size = text.length;
    }
    printTable(
      ["request", "sessions", "ms (median)", "per request ms", "response bytes"],
      [["GET /v1/sessions (first: indexes the stored sessions)", String(sessions), fmt(median(times)), times.map((t) => fmt(t)).join(" / "), size.toLocaleString("en-US")]],
    );
  } finally {
    await stopCli(server);
  }
} finally {
  await dir.cleanup();
}

// --- internals ---

/**
 * Writes `count` idle chat sessions the way the host leaves them after one `hi` turn: the
 * record, the continuation-token index entry and a 9-event log.
 */
async function writeSessions(root: string, count: number): Promise<void> {
  const storage = createSqliteStorage({ path: join(root, "state.db") });
  const start = Date.parse("2026-01-01T09:00:00.000Z");
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const n = next++;
      const sessionId = `ses_bench${String(n).padStart(11, "0")}`;
      const turnId = `turn_bench${String(n).padStart(6, "0")}`;
      const token = `http:bench${String(n).padStart(27, "0")}`;
      const at = new Date(start + n * 1000).toISOString();
      const record = idleChatRecord(sessionId, token, at);
      const event = eventLine(sessionId, turnId, at);
      const usage = { inputTokens: 3, outputTokens: 2, cacheReadTokens: 0, cacheWriteTokens: 0 };
      await storage.set(`sessions/${sessionId}/record`, JSON.stringify(record));
      await storage.set(`continuations/http/${Buffer.from(token).toString("base64url")}`, sessionId);
      await storage.append(`sessions/${sessionId}/events`, [
        event(0, "session.started", { mode: "chat", channel: "http" }, false),
        event(1, "message.received", { text: "hi" }),
        event(2, "turn.started", {}),
        event(3, "step.started", { stepIndex: 0 }),
        event(4, "message.appended", { delta: "echo: hi" }),
        event(5, "message.completed", { text: "echo: hi", finishReason: "stop" }),
        event(6, "step.completed", { stepIndex: 0, durationMs: 3, finishReason: "stop" }),
        event(7, "turn.completed", { usage, model: "scripted" }),
        event(8, "session.waiting", {}, false),
      ]);
    }
  };
  await Promise.all(Array.from({ length: 32 }, worker));
  await storage.close();
}
