/**
 * One job of the real-process-death run (./kill.ts): a project whose tools append each run to a
 * ledger file before doing anything else (a synchronous append survives the kill, on Node, Bun and
 * Deno alike), served by `agent-serve serve` on one runtime over one store, SIGKILLed at a seeded
 * moment while the chaos workload (./workload.ts) runs over HTTP, then started again on the same
 * state, round after round. A final process settles everything and the oracles of the in-process
 * sweep (./oracles.ts) check the accumulated acknowledgements, follower bytes and ledger against
 * what the store holds.
 * @module
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { AgentHost } from "../../src/host/types.ts";
import type { KillRuntime, StoreTarget } from "./kill-targets.ts";
import { runtimeCommand } from "./kill-targets.ts";
import { countTool, type Ledger, newLedger } from "./ledger.ts";
import { checkOracles } from "./oracles.ts";
import { type Acknowledged, random, runWorkload, T0 } from "./workload.ts";

const BIN = fileURLToPath(new URL("../../bin/agent-serve.mjs", import.meta.url));
const REPO = fileURLToPath(new URL("../..", import.meta.url));

/** One row of bench/chaos/results/kill.json. */
export interface KillRun {
  store: string;
  runtime: KillRuntime;
  seed: number;
  deaths: number;
  sessions: number;
  acknowledgedMessages: number;
  followerStreams: number;
  toolRuns: number;
  closedByRecovery: number;
  outcomeUnknown: number;
  approvalDecisions: number;
  violations: string[];
  seconds: number;
  /** Starts that exited before listening and were started again (as a supervisor would). */
  failedStarts: number;
}

// `node:process` rather than the `process` global: Deno gives the global only to npm modules' code.
const tool = (name: string, extra: string): string => `import { appendFileSync } from "node:fs";
import { env } from "node:process";
export default {
  description: "A side effect the chaos ledger counts (${name})",${extra}
  async execute(_input, ctx) {
    appendFileSync(env.CHAOS_LEDGER, ctx.toolCallId + " ${name}\\n");
    await new Promise((resolve) => setTimeout(resolve, 1));
    return "${name} done";
  },
};
`;

function writeProject(dir: string): void {
  mkdirSync(join(dir, "bot", "tools"), { recursive: true });
  writeFileSync(join(dir, "bot", "agent.ts"), `export default { name: "Chaos" };\n`);
  writeFileSync(join(dir, "bot", "instructions.md"), "Be brief.\n");
  writeFileSync(join(dir, "bot", "tools", "record.ts"), tool("record", "\n  idempotent: false,"));
  writeFileSync(join(dir, "bot", "tools", "lookup.ts"), tool("lookup", "\n  idempotent: true,"));
  writeFileSync(join(dir, "bot", "tools", "gated.ts"), tool("gated", "\n  needsApproval: true,"));
}

interface Served {
  child: ChildProcess;
  url: string;
  exited: Promise<void>;
}

async function serve(runtime: KillRuntime, dir: string, args: string[], env: NodeJS.ProcessEnv): Promise<Served> {
  const [file, argv] = runtimeCommand(runtime, BIN, ["serve", dir, "--port", "0", "--mode", "single", "--state-root", join(dir, ".state"), "--no-schedules", ...args]);
  const child = spawn(file, argv, { cwd: REPO, env, stdio: ["ignore", "pipe", "pipe"] });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  let out = "";
  let err = "";
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => (err += chunk));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve on ${runtime} did not listen within 60 s\n${out}\n${err}`)), 60_000);
    child.stdout!.setEncoding("utf8").on("data", (chunk: string) => {
      out += chunk;
      const match = /agent-serve listening on (http:\/\/\S+)/.exec(out);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    });
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`serve on ${runtime} exited before listening: ${err.trim().slice(-600)}`));
    });
  });
  return { child, url, exited };
}

/**
 * Starts `serve`, again when a start exits before listening (on a loaded machine a store's
 * connect can time out: the host refuses to start, and a supervisor would start it again).
 */
async function serveAgain(runtime: KillRuntime, dir: string, args: string[], env: NodeJS.ProcessEnv, failed: { starts: number }, onFailedStart?: (reason: string) => void): Promise<Served> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await serve(runtime, dir, args, env);
    } catch (error) {
      if (attempt === 3) throw error;
      failed.starts++;
      onFailedStart?.((error as Error).message);
    }
  }
}

async function kill(served: Served): Promise<void> {
  if (served.child.exitCode === null && served.child.signalCode === null) served.child.kill("SIGKILL");
  await served.exited;
}

/** The workload's view of a served process: the agent's routes without the in-process slug prefix. */
function overHttp(url: string): AgentHost {
  return {
    request: (path: string, init?: RequestInit) => fetch(`${url}${path.replace(/^\/chaos/, "")}`, init),
    tick: async () => [],
  } as unknown as AgentHost;
}

function merge(into: Acknowledged, from: Acknowledged, round: number): void {
  for (const [sessionId, tags] of from.messages) into.messages.set(sessionId, [...(into.messages.get(sessionId) ?? []), ...tags]);
  for (const [sessionId, lines] of from.followed) into.followed.set(`${sessionId}#${round}`, lines);
  into.decisions.push(...from.decisions);
}

function readLedger(file: string): Ledger["toolRuns"] {
  const read = newLedger();
  for (const line of readFileSync(file, "utf8").split("\n").filter(Boolean)) {
    const [callId, toolName] = line.split(" ");
    countTool(read, callId!, toolName!);
  }
  return read.toolRuns;
}

export interface LaneOptions {
  store: StoreTarget;
  runtime: KillRuntime;
  seed: number;
  deaths: number;
  /** Called after each death, for progress. */
  onDeath?: (round: number, delayMs: number) => void;
  /** Called with the reason of each start that had to be made again. */
  onFailedStart?: (reason: string) => void;
}

export async function runLane(options: LaneOptions): Promise<KillRun> {
  const { store, runtime, seed, deaths } = options;
  const dir = mkdtempSync(join(tmpdir(), `agent-serve-chaos-kill-${store.name}-${runtime}-`));
  const lane = store.lane(`${runtime}-${seed}-${process.pid}`, dir);
  const ledgerFile = join(dir, "ledger.txt");
  writeFileSync(ledgerFile, "");
  const env: NodeJS.ProcessEnv = { ...process.env, ...lane.env, NO_COLOR: "1", AGENT_SERVE_CONFIG_DIR: join(dir, ".config"), CHAOS_LEDGER: ledgerFile };
  for (const name of ["OPENAI_API_KEY", "ANTHROPIC_API_KEY", "PORT", "HOST", "AGENT_SERVE_STORAGE"]) delete env[name];
  writeProject(dir);

  const started = performance.now();
  const next = random(seed);
  const failed = { starts: 0 };
  const all: Acknowledged = { messages: new Map(), followed: new Map(), decisions: [], slots: new Set(), reminders: new Set(), stopFollowers: () => {} };
  try {
    for (let round = 1; round <= deaths; round++) {
      const served = await serveAgain(runtime, dir, lane.args, env, failed, options.onFailedStart);
      let killed = false;
      try {
        // The process has answered once (its project loaded), so the kill falls in the workload.
        await (await fetch(`${served.url}/v1/sessions`)).body?.cancel();
        // Killed at a seeded moment: while the workload's requests, turns and tools are in flight.
        const delay = Math.floor(next() * 400);
        const timer = setTimeout(() => {
          killed = true;
          served.child.kill("SIGKILL");
        }, delay);
        const acknowledged = await runWorkload(overHttp(served.url), seed * 100_000 + round, { now: T0 }, () => killed);
        // A workload done before the moment leaves turns running in the background: the kill still waits for it.
        await served.exited;
        clearTimeout(timer);
        acknowledged.stopFollowers();
        merge(all, acknowledged, round);
        options.onDeath?.(round, delay);
      } finally {
        killed = true;
        await kill(served);
      }
    }
    const last = await serveAgain(runtime, dir, lane.args, env, failed, options.onFailedStart);
    const storage = lane.open();
    try {
      // Read when the oracles look: the final process runs the calls they approve while settling.
      const ledger: Ledger = {
        get toolRuns() {
          return readLedger(ledgerFile);
        },
        slotRuns: new Map(),
      };
      const verdict = await checkOracles(overHttp(last.url), storage, all, ledger, { now: T0 });
      return {
        store: store.name,
        runtime,
        seed,
        deaths,
        sessions: all.messages.size,
        acknowledgedMessages: [...all.messages.values()].flat().length,
        followerStreams: all.followed.size,
        toolRuns: [...ledger.toolRuns.values()].reduce((n, r) => n + r.runs, 0),
        closedByRecovery: verdict.restartedTurns,
        outcomeUnknown: verdict.unknownOutcomes,
        approvalDecisions: verdict.decisions,
        violations: verdict.violations,
        seconds: Number(((performance.now() - started) / 1000).toFixed(1)),
        failedStarts: failed.starts,
      };
    } finally {
      await storage.close();
      last.child.kill("SIGTERM");
      await last.exited;
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
