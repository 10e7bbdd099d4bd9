/**
 * Real process deaths (docs/reliability.md "Real process deaths"): `agent-serve serve` (Node, the
 * default sqlite store, `synchronous=FULL`) runs the chaos workload (./workload.ts) over HTTP and
 * is SIGKILLed at a seeded moment, then started again on the same state root, round after round.
 * The tools of its project append each run to a ledger file before doing anything else (a
 * synchronous append survives the kill), so the side-effect oracles see what every process did.
 * After the last round a final process settles everything (approving what is still parked) and
 * the oracles of the in-process sweep (./oracles.ts) check the accumulated acknowledgements,
 * follower bytes and ledger against the recovered store.
 *
 *   npm run chaos -- --kill [--deaths=20 --seed=1]
 * @module
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createSqliteStorage } from "../../drivers/sqlite/index.ts";
import type { AgentHost } from "../../src/host/types.ts";
import { countTool, type Ledger, newLedger } from "./ledger.ts";
import { checkOracles } from "./oracles.ts";
import { type Acknowledged, random, runWorkload, T0 } from "./workload.ts";

const arg = (name: string, fallback: number): number => {
  const found = process.argv.find((a) => a.startsWith(`--${name}=`));
  return found ? Number(found.split("=")[1]) : fallback;
};
const deaths = arg("deaths", 20);
const seed = arg("seed", 1);
const BIN = fileURLToPath(new URL("../../bin/agent-serve.mjs", import.meta.url));
const REPO = fileURLToPath(new URL("../..", import.meta.url));

const tool = (name: string, extra: string): string => `import { appendFileSync } from "node:fs";
export default {
  description: "A side effect the chaos ledger counts (${name})",${extra}
  async execute(_input, ctx) {
    appendFileSync(process.env.CHAOS_LEDGER, ctx.toolCallId + " ${name}\\n");
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

async function serve(dir: string, env: NodeJS.ProcessEnv): Promise<Served> {
  const child = spawn(process.execPath, [BIN, "serve", dir, "--port", "0", "--mode", "single", "--state-root", join(dir, ".state"), "--no-schedules"], {
    cwd: REPO,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  let out = "";
  let err = "";
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => (err += chunk));
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout!.setEncoding("utf8").on("data", (chunk: string) => {
      out += chunk;
      const match = /agent-serve listening on (http:\/\/\S+)/.exec(out);
      if (match) resolve(match[1]!);
    });
    void exited.then(() => reject(new Error(`serve exited before listening\n${out}\n${err}`)));
  });
  return { child, url, exited };
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

const dir = mkdtempSync(join(tmpdir(), "agent-serve-chaos-kill-"));
const ledgerFile = join(dir, "ledger.txt");
writeFileSync(ledgerFile, "");
const env: NodeJS.ProcessEnv = { ...process.env, AGENT_SERVE_CONFIG_DIR: join(dir, ".config"), CHAOS_LEDGER: ledgerFile };
for (const name of ["OPENAI_API_KEY", "ANTHROPIC_API_KEY", "PORT", "HOST"]) delete env[name];
writeProject(dir);

const started = performance.now();
const next = random(seed);
const all: Acknowledged = { messages: new Map(), followed: new Map(), decisions: [], slots: new Set(), reminders: new Set(), stopFollowers: () => {} };
let code = 1;
try {
  for (let round = 1; round <= deaths; round++) {
    const served = await serve(dir, env);
    let killed = false;
    // The process has answered once (its project loaded), so the kill falls in the workload.
    await (await fetch(`${served.url}/v1/sessions`)).body?.cancel();
    // Killed at a seeded moment: while the workload's requests, turns and tools are in flight.
    const delay = Math.floor(next() * 400);
    const timer = setTimeout(() => {
      killed = true;
      served.child.kill("SIGKILL");
    }, delay);
    const acknowledged = await runWorkload(overHttp(served.url), seed * 100_000 + round, { now: T0 }, () => killed);
    await served.exited.catch(() => {});
    clearTimeout(timer);
    if (!killed) {
      killed = true;
      served.child.kill("SIGKILL");
      await served.exited;
    }
    merge(all, acknowledged, round);
    console.log(`death ${round}: killed after ${delay} ms, ${acknowledged.messages.size} sessions, ${[...acknowledged.messages.values()].flat().length} messages acknowledged`);
  }
  const last = await serve(dir, env);
  const storage = createSqliteStorage({ path: join(dir, ".state", "state.db"), readOnly: true });
  try {
    // Read when the oracles look: the final process runs the calls they approve while settling.
    const ledger: Ledger = {
      get toolRuns() {
        const read = newLedger();
        for (const line of readFileSync(ledgerFile, "utf8").split("\n").filter(Boolean)) {
          const [callId, toolName] = line.split(" ");
          countTool(read, callId!, toolName!);
        }
        return read.toolRuns;
      },
      slotRuns: new Map(),
    };
    const verdict = await checkOracles(overHttp(last.url), storage, all, ledger, { now: T0 });
    const checked = [...all.messages.values()].flat().length;
    const seconds = (performance.now() - started) / 1000;
    console.log(`\n| process deaths | sessions | acknowledged messages checked | follower streams checked | tool runs in the ledger | turns closed by recovery | outcome_unknown results | approval decisions checked | violations | seconds |`);
    console.log(`|---|---|---|---|---|---|---|---|---|---|`);
    console.log(`| ${deaths} | ${all.messages.size} | ${checked} | ${all.followed.size} | ${[...ledger.toolRuns.values()].reduce((n, r) => n + r.runs, 0)} | ${verdict.restartedTurns} | ${verdict.unknownOutcomes} | ${verdict.decisions} | ${verdict.violations.length} | ${seconds.toFixed(1)} |`);
    for (const violation of verdict.violations.slice(0, 50)) console.log(`  seed ${seed}: ${violation}`);
    code = verdict.violations.length > 0 ? 1 : 0;
  } finally {
    await storage.close();
    last.child.kill("SIGTERM");
    await last.exited;
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
process.exit(code);
