/**
 * The start of the chaos harness (issue 32): crash points in process, deterministic from a seed.
 * For each seed it runs the workload once to count its storage operations, then, for crash
 * points N spread over that count, runs it again on a fresh memory store that crashes at its Nth
 * operation, abandons that host without draining, opens a new host on the same store, lets
 * recovery run, and checks the oracles (./oracles.ts). The workload's interleaving follows the
 * event loop, so a crash point names the Nth operation of that seed's run, not one fixed write.
 *
 *   npm run chaos [-- --seeds=3 --points=40]     the small default
 *   npm run chaos -- --full                      every operation of every seed
 * @module
 */
import { createHost } from "../../src/host/host.ts";
import { createMemoryStorage } from "../../src/base/storage/memory.ts";
import { createScriptedModel } from "../../src/testing.ts";
import type { ProjectDefinition } from "../../src/base/definitions/project.ts";
import type { StorageDriver } from "../../src/base/storage/types.ts";
import type { AgentHost } from "../../src/host/types.ts";
import { crashingStore } from "./crash-store.ts";
import { checkOracles } from "./oracles.ts";
import { runWorkload } from "./workload.ts";

const flag = (name: string, fallback: number): number => {
  const arg = process.argv.find((a) => a.startsWith(`--${name}=`));
  return arg ? Number(arg.split("=")[1]) : fallback;
};
const full = process.argv.includes("--full");
const seeds = flag("seeds", 3);
const firstSeed = flag("seed", 1);
const points = flag("points", 40);

const quiet = { debug() {}, info() {}, warn() {}, error() {} };

function project(toolRuns: Map<string, number>): ProjectDefinition {
  return {
    name: "Chaos",
    agent: {},
    instructions: "Be brief.",
    diagnostics: [],
    tools: {
      record: {
        description: "Records a tag: a side effect that must not run twice for one call",
        execute: (_input: unknown, ctx: { toolCallId: string }) => {
          toolRuns.set(ctx.toolCallId, (toolRuns.get(ctx.toolCallId) ?? 0) + 1);
          return "recorded";
        },
      },
    },
  } as ProjectDefinition;
}

function hostOn(storage: StorageDriver, toolRuns: Map<string, number>): AgentHost {
  const model = createScriptedModel();
  return createHost({ agents: [{ slug: "chaos", project: project(toolRuns), storage }], models: { resolve: () => model }, logger: quiet, drainTimeoutMs: 50 });
}

/** One crash point: the violations the oracles found after recovery. */
async function crashPoint(seed: number, crashAt: number): Promise<{ operations: number; violations: string[]; checked: number; restartedTurns: number }> {
  const inner = createMemoryStorage();
  const toolRuns = new Map<string, number>();
  const crashing = crashingStore(inner, crashAt);
  const first = hostOn(crashing.driver, toolRuns);
  // A crash point may fall in the first host's own start-up recovery.
  await first.ready().catch(() => {});
  const acknowledged = await runWorkload(first, seed, crashing.crashed);
  if (crashAt === 0) {
    // The counting run drains, so its count covers every operation of a finished workload.
    await first.close();
    return { operations: crashing.operations(), violations: [], checked: 0, restartedTurns: 0 };
  }
  // Abandoned, never closed: a dead process drains nothing.
  const second = hostOn(inner, toolRuns);
  try {
    await second.ready();
    const checked = [...acknowledged.messages.values()].reduce((sum, tags) => sum + tags.length, 0);
    return { operations: crashing.operations(), checked, ...(await checkOracles(second, acknowledged, toolRuns)) };
  } finally {
    await second.close();
  }
}

const started = performance.now();
let crashes = 0;
let messages = 0;
let restarted = 0;
const failures: string[] = [];
for (let seed = firstSeed; seed < firstSeed + seeds; seed++) {
  const { operations } = await crashPoint(seed, 0);
  const count = full ? operations : Math.min(points, operations);
  for (let i = 1; i <= count; i++) {
    // Spread over the whole run when sampling; every operation with --full.
    const crashAt = full ? i : Math.max(1, Math.round((i * operations) / count));
    const { violations, checked, restartedTurns } = await crashPoint(seed, crashAt);
    crashes++;
    messages += checked;
    restarted += restartedTurns;
    for (const violation of violations) failures.push(`seed ${seed} crash at operation ${crashAt}: ${violation}`);
  }
  console.log(`seed ${seed}: ${operations} storage operations, ${count} crash points`);
}
const seconds = (performance.now() - started) / 1000;
console.log(`${crashes} crash points on the memory store in ${seconds.toFixed(1)} s, ${messages} acknowledged messages checked, ${restarted} turns closed by recovery: ${failures.length} violations`);
for (const failure of failures.slice(0, 50)) console.log(`  ${failure}`);
process.exit(failures.length > 0 ? 1 : 0);
