/**
 * Soak: a real `agent-serve serve` (fs driver, scripted model) under steady traffic from many
 * sessions for a long time, with a live follower on every session. Samples the server's resident
 * memory (VmRSS from /proc) and open file descriptors (/proc/<pid>/fd) at a fixed interval.
 *
 *   npx node bench/soak.ts [--sessions=200] [--minutes=10] [--sample=15] [--think=1000]
 *
 * Each session loops: send a follow-up, wait for its `session.waiting` on the follower stream,
 * think for up to `--think` ms, repeat. Target: no growth. The baseline is the same run's first
 * sample after warm-up (every session created, one turn each); the table reports later samples as
 * ratios to it, so a leak shows as a ratio that keeps climbing.
 * @module
 */
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { mkdir, writeFile } from "node:fs/promises";
import { fmt, machineLine, option, printTable, serveCli, stopCli, tempDir } from "./_util.ts";

const sessions = option("sessions", 200);
const minutes = option("minutes", 10);
const sampleSeconds = option("sample", 15);
const thinkMs = option("think", 1000);
const dir = await tempDir("soak");

interface Sample {
  atS: number;
  rssMb: number;
  fds: number;
  turns: number;
  errors: number;
}

try {
  console.log(`soak: ${sessions} sessions for ${minutes} min, sample every ${sampleSeconds} s, think up to ${thinkMs} ms; ${machineLine()}`);
  const project = join(dir.path, "project");
  await mkdir(join(project, "bot"), { recursive: true });
  await writeFile(join(project, "bot", "instructions.md"), "You are a benchmark agent.\n");
  // No shell: the bench measures the host, and the warning about unsandboxed shell is not its business.
  await writeFile(join(project, "bot", "agent.ts"), `export default { tools: [] };\n`);
  await writeFile(join(project, "package.json"), `${JSON.stringify({ name: "soak-agent", private: true })}\n`);
  const served = await serveCli(project, join(dir.path, "state"));
  const pid = served.child.pid!;
  const counters = { turns: 0, errors: 0 };
  const deadline = Date.now() + minutes * 60_000;
  let stopping = false;

  const warm = await Promise.all(Array.from({ length: sessions }, (_, i) => startSession(served.url, i, counters)));
  console.log(`  warm: ${warm.length} sessions created, one turn each`);
  const began = Date.now();
  const samples: Sample[] = [await sample(pid, 0, counters)];
  const loops = warm.map((session) => drive(session, counters, () => stopping || Date.now() > deadline));
  const sampler = setInterval(() => {
    void sample(pid, (Date.now() - began) / 1000, counters).then((s) => {
      samples.push(s);
      console.log(`  ${fmt(s.atS)} s: RSS ${fmt(s.rssMb)} MB, ${s.fds} fds, ${s.turns} turns, ${s.errors} errors`);
    });
  }, sampleSeconds * 1000);
  await Promise.all(loops);
  stopping = true;
  clearInterval(sampler);
  samples.push(await sample(pid, (Date.now() - began) / 1000, counters));
  await stopCli(served);

  const base = samples[0]!;
  const elapsed = samples.at(-1)!.atS;
  console.log(`\n${samples.at(-1)!.turns} turns in ${fmt(elapsed)} s (${fmt(samples.at(-1)!.turns / elapsed)} turns/s), ${samples.at(-1)!.errors} errors`);
  const pick = [0.25, 0.5, 0.75, 1].map((f) => samples[Math.min(samples.length - 1, Math.round(f * (samples.length - 1)))]!);
  printTable(
    ["at", "RSS MB", "RSS ratio to warm", "open fds", "fd ratio to warm", "turns so far"],
    [base, ...pick].map((s) => [`${fmt(s.atS)} s`, fmt(s.rssMb), fmt(s.rssMb / base.rssMb), String(s.fds), fmt(s.fds / base.fds), String(s.turns)]),
  );
  const rss = samples.map((s) => s.rssMb);
  const fds = samples.map((s) => s.fds);
  console.log(`RSS min/max ${fmt(Math.min(...rss))}/${fmt(Math.max(...rss))} MB; fds min/max ${Math.min(...fds)}/${Math.max(...fds)}`);
} finally {
  await dir.cleanup();
}

// --- internals ---

interface Session {
  url: string;
  sessionId: string;
  token: string;
  /** Resolves at the next `session.waiting` the follower sees. */
  waiting: () => Promise<void>;
}

async function startSession(url: string, i: number, counters: { turns: number; errors: number }): Promise<Session> {
  const response = await fetch(`${url}/v1/session`, json({ message: `/reply hello ${i}` }));
  const { sessionId, continuationToken } = (await response.json()) as { sessionId: string; continuationToken: string };
  const waiters: Array<() => void> = [];
  let pending = 0;
  void follow(`${url}/v1/session/${sessionId}/stream`, () => {
    counters.turns++;
    const next = waiters.shift();
    if (next) next();
    else pending++;
  });
  const session: Session = {
    url,
    sessionId,
    token: continuationToken,
    waiting: () =>
      pending > 0 ? ((pending--, Promise.resolve())) : new Promise<void>((resolve) => waiters.push(resolve)),
  };
  await session.waiting();
  return session;
}

async function drive(session: Session, counters: { turns: number; errors: number }, done: () => boolean): Promise<void> {
  let n = 0;
  while (!done()) {
    const response = await fetch(`${session.url}/v1/session/${session.sessionId}`, json({ continuationToken: session.token, message: `/reply turn ${n++} of the soak` }));
    if (response.status !== 200) {
      counters.errors++;
      await response.body?.cancel();
      await sleep(thinkMs);
      continue;
    }
    session.token = ((await response.json()) as { continuationToken: string }).continuationToken;
    await session.waiting();
    await sleep(Math.random() * thinkMs);
  }
}

/** Calls `onWaiting` for every `session.waiting` line of the stream, until the server goes away. */
async function follow(url: string, onWaiting: () => void): Promise<void> {
  try {
    const response = await fetch(url);
    const decoder = new TextDecoder();
    let buffer = "";
    for await (const chunk of response.body!) {
      buffer += decoder.decode(chunk as Uint8Array, { stream: true });
      let newline: number;
      while ((newline = buffer.indexOf("\n")) >= 0) {
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + 1);
        if (line.includes('"type":"session.waiting"')) onWaiting();
      }
    }
  } catch {
    // The server stopped.
  }
}

async function sample(pid: number, atS: number, counters: { turns: number; errors: number }): Promise<Sample> {
  const status = await readFile(`/proc/${pid}/status`, "utf8");
  const rssKb = Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1] ?? Number.NaN);
  const fds = (await readdir(`/proc/${pid}/fd`)).length;
  return { atS, rssMb: rssKb / 1024, fds, turns: counters.turns, errors: counters.errors };
}

function json(body: unknown): RequestInit {
  return { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) };
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
