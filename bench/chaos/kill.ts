/**
 * Real process deaths (docs/reliability.md "Real process deaths"): `agent-serve serve` runs the
 * chaos workload over HTTP on every (store, runtime) pair (sqlite, Redis, Postgres; Node, Bun,
 * Deno) and is SIGKILLed at seeded moments, then started again on the same state (./kill-lane.ts).
 * The deaths are split over the pairs, and each pair's share over jobs of at most `--per-seed`
 * deaths, one seed each; `--lanes` jobs run at once, each with its own state and serve process.
 * A store or runtime whose tool is missing is reported skipped, with the reason. `--record`
 * writes bench/chaos/results/kill.json (a row per store, runtime and seed); ./run.ts renders the
 * report from it on the way out.
 *
 *   npm run chaos -- --kill [--deaths=20 --seed=1 --stores=sqlite,redis,postgres --runtimes=node,bun,deno --lanes=2 --per-seed=25 --record]
 * @module
 */
import { availableParallelism, loadavg } from "node:os";
import { type KillRun, runLane } from "./kill-lane.ts";
import { finished, type KillRecord, RESULTS_DIR, startContext, writeResult } from "./results.ts";
import { KILL_RUNTIMES, KILL_STORES, type KillRuntime, type KillStore, runtimeMissing, startStore, storeMissing, type StoreTarget } from "./kill-targets.ts";

const arg = (name: string): string | undefined => process.argv.find((a) => a.startsWith(`--${name}=`))?.split("=")[1];
const num = (name: string, fallback: number): number => (arg(name) === undefined ? fallback : Number(arg(name)));
const list = <T extends string>(name: string, all: readonly T[]): T[] => {
  const asked = arg(name)?.split(",").filter(Boolean) ?? [...all];
  const unknown = asked.filter((item) => !all.includes(item as T));
  if (unknown.length > 0) throw new Error(`--${name}: unknown ${unknown.join(", ")} (known: ${all.join(", ")})`);
  return asked as T[];
};

const deaths = num("deaths", 20);
const firstSeed = num("seed", 1);
const perSeed = Math.max(1, num("per-seed", 25));
const lanes = Math.max(1, num("lanes", availableParallelism()));
const record = process.argv.includes("--record");

const skipped: string[] = [];
const stores = list("stores", KILL_STORES).filter((store) => {
  const why = storeMissing(store);
  if (why) skipped.push(`${store}: skipped, ${why}`);
  return !why;
});
const runtimes = list("runtimes", KILL_RUNTIMES).filter((runtime) => {
  const why = runtimeMissing(runtime);
  if (why) skipped.push(`${runtime}: skipped, ${why}`);
  return !why;
});

interface Job {
  store: KillStore;
  runtime: KillRuntime;
  seed: number;
  deaths: number;
}

/** The deaths split over the pairs, each pair's share over seeds; pairs interleaved so lanes mix them. */
function plan(): Job[] {
  const pairs = stores.flatMap((store) => runtimes.map((runtime) => ({ store, runtime })));
  const byPair = pairs.map(({ store, runtime }, i) => {
    const share = Math.floor(deaths / pairs.length) + (i < deaths % pairs.length ? 1 : 0);
    const seeds = Math.ceil(share / perSeed);
    return Array.from({ length: seeds }, (_, s) => ({ store, runtime, seed: firstSeed + s, deaths: Math.floor(share / seeds) + (s < share % seeds ? 1 : 0) }));
  });
  const jobs: Job[] = [];
  for (let i = 0; byPair.some((pair) => i < pair.length); i++) for (const pair of byPair) if (pair[i]) jobs.push(pair[i]!);
  return jobs.filter((job) => job.deaths > 0);
}

const jobs = plan();
for (const line of skipped) console.log(line);
console.log(`chaos kill: ${deaths} deaths over ${stores.join(", ") || "no store"} × ${runtimes.join(", ") || "no runtime"}, ${jobs.length} seeds of at most ${perSeed}, ${lanes} lanes`);

const context = startContext(process.argv.slice(2));
const loadBefore = loadavg();
const started = performance.now();
const targets = new Map<KillStore, StoreTarget>();
const runs: KillRun[] = [];
/** Writes bench/chaos/results/kill.json with the rows so far: after every job, so a long run cut short keeps what it did. */
function writeRecord(seconds: number): void {
  const rows = [...runs].sort((a, b) => KILL_STORES.indexOf(a.store as KillStore) - KILL_STORES.indexOf(b.store as KillStore) || KILL_RUNTIMES.indexOf(a.runtime) - KILL_RUNTIMES.indexOf(b.runtime) || a.seed - b.seed);
  // A lane's row has named counts; the record reads rows as any numeric fields (./results.ts).
  writeResult("kill.json", { ...finished(context, seconds), runs: rows as unknown as KillRecord["runs"] });
}

try {
  for (const store of stores) targets.set(store, await startStore(store));
  const queue = [...jobs];
  await Promise.all(
    Array.from({ length: Math.min(lanes, queue.length) }, async () => {
      for (let job = queue.shift(); job; job = queue.shift()) {
        const { store, runtime, seed } = job;
        const jobStarted = performance.now();
        let run: KillRun;
        try {
          run = await runLane({ store: targets.get(store)!, runtime, seed, deaths: job.deaths, onFailedStart: (reason) => console.log(`  ${store}/${runtime} seed ${seed}: a start failed, starting again: ${reason}`) });
        } catch (error) {
          // A job that could not finish is a failure of the run, counted as a violation.
          const seconds = Number(((performance.now() - jobStarted) / 1000).toFixed(1));
          run = { store, runtime, seed, deaths: 0, sessions: 0, acknowledgedMessages: 0, followerStreams: 0, toolRuns: 0, closedByRecovery: 0, outcomeUnknown: 0, approvalDecisions: 0, failedStarts: 0, violations: [`the job failed: ${String((error as Error).message ?? error).slice(0, 400)}`], seconds };
        }
        runs.push(run);
        console.log(`${((performance.now() - started) / 1000).toFixed(1)} s ${store}/${runtime} seed ${seed}: ${run.deaths} deaths, ${run.sessions} sessions, ${run.acknowledgedMessages} messages, ${run.violations.length} violations (${run.seconds} s)`);
        for (const violation of run.violations.slice(0, 10)) console.log(`  ${store}/${runtime} seed ${seed}: ${violation}`);
        if (record) writeRecord((performance.now() - started) / 1000);
      }
    }),
  );
} finally {
  await Promise.all([...targets.values()].map((target) => target.close()));
}
const seconds = Number(((performance.now() - started) / 1000).toFixed(1));
const loadAfter = loadavg();

const sum = (rows: KillRun[], key: keyof KillRun): number => rows.reduce((n, row) => n + (row[key] as number), 0);
console.log(`\n| store | runtime | process deaths | sessions | acknowledged messages checked | follower streams checked | tool runs in the ledger | turns closed by recovery | outcome_unknown results | approval decisions checked | starts made again | violations | seconds |`);
console.log(`|---|---|---|---|---|---|---|---|---|---|---|---|---|`);
const groups = stores.flatMap((store) => runtimes.map((runtime) => ({ label: `${store} | ${runtime}`, rows: runs.filter((r) => r.store === store && r.runtime === runtime) })));
for (const { label, rows } of [...groups, { label: "all | all", rows: runs }]) {
  const keys = ["deaths", "sessions", "acknowledgedMessages", "followerStreams", "toolRuns", "closedByRecovery", "outcomeUnknown", "approvalDecisions", "failedStarts"] as const;
  console.log(`| ${label} | ${keys.map((key) => sum(rows, key)).join(" | ")} | ${rows.reduce((n, r) => n + r.violations.length, 0)} | ${sum(rows, "seconds").toFixed(1)} |`);
}
const violations = runs.reduce((n, r) => n + r.violations.length, 0);
console.log(`\n${sum(runs, "deaths")} process deaths in ${seconds} s (load ${loadBefore.map((l) => l.toFixed(2)).join(" ")} before, ${loadAfter.map((l) => l.toFixed(2)).join(" ")} after): ${violations} violations`);

if (record) {
  writeRecord(seconds);
  console.log(`recorded ${RESULTS_DIR}kill.json`);
}
process.exit(violations > 0 ? 1 : 0);
