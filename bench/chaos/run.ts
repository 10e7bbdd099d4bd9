/**
 * The chaos harness (issue 32, docs/reliability.md): crash points in process, deterministic from a
 * seed, on the memory store, sqlite, Redis and Postgres. Each (store, seed) is one job (./sweep.ts);
 * jobs run in worker processes, so the sweep uses every core and its result does not depend on how
 * many. `--record` writes the run's results (./results.ts) and renders docs/reliability.md again
 * (./report.ts); `--report` only renders it.
 *
 *   npm run chaos                                   the small default (sampled points)
 *   npm run chaos -- --full                         every operation of 30 seeds, memory and sqlite, both modes
 *   npm run chaos -- --stores=redis,postgres --points=40 --record     the sampled figure of the server stores
 *   npm run chaos -- --report                       render docs/reliability.md from the recorded results
 *   npm run chaos -- --seeds=5 --first-seed=100 --points=20 --stores=sqlite --workers=2
 *   npm run chaos -- --store=sqlite --seed=7 --at=93 --mode=landed     replay one crash point
 *   npm run chaos -- --kill --deaths=20 --seed=1    SIGKILL real `serve` processes (./kill.ts)
 * @module
 */
import { fork } from "node:child_process";
import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";
import type { CrashMode } from "./crash-store.ts";
import { crashPoint } from "./crash-point.ts";
import { writeReport } from "./report.ts";
import { finished, startContext, type SweepRecord, sweepFileName, writeResult } from "./results.ts";
import { isStoreName, type StoreName, storeMissing, stopServers } from "./stores.ts";
import { addTotals, emptyTotals, type SweepTotals, sweepSeed } from "./sweep.ts";

const arg = (name: string): string | undefined => process.argv.find((a) => a.startsWith(`--${name}=`))?.split("=")[1];
const num = (name: string, fallback: number): number => (arg(name) === undefined ? fallback : Number(arg(name)));
const full = process.argv.includes("--full");

interface Job {
  store: StoreName;
  seed: number;
}

const modes: CrashMode[] = (arg("modes")?.split(",") as CrashMode[] | undefined) ?? ["lost", "landed"];
const points = full ? 0 : num("points", 12);

if (process.argv.includes("--report")) {
  console.log(`chaos: rendered ${writeReport()}`);
} else if (process.argv.includes("--kill")) {
  // Real process deaths instead of crash points (./kill.ts); it exits the process itself, after
  // writing results/kill.json when recording, so the document is rendered on the way out (the
  // render is synchronous, as an exit handler must be).
  if (process.argv.includes("--record")) process.on("exit", () => console.log(`chaos: rendered ${writeReport()}`));
  await import("./kill.ts");
} else if (process.argv.includes("--worker")) {
  // A worker: runs the jobs its parent sends, answers each with its totals.
  process.on("message", (job: Job | "done") => {
    if (job === "done") {
      void stopServers().then(() => process.exit(0));
      return;
    }
    void sweepSeed(job.store, job.seed, { points, modes }).then((totals) => process.send!({ job, totals }));
  });
  // A worker whose parent is gone stops too.
  process.on("disconnect", () => void stopServers().then(() => process.exit(1)));
  process.send!("ready");
} else if (arg("at") !== undefined) {
  const store = arg("store") ?? "memory";
  if (!isStoreName(store)) {
    console.error(`chaos: unknown store ${store} (the stores: memory, sqlite, redis, postgres)`);
    process.exit(2);
  }
  const missing = storeMissing(store);
  if (missing) {
    console.log(`chaos: ${store} skipped: ${missing}`);
    process.exit(0);
  }
  const result = await crashPoint(store, num("seed", 1), num("at", 1), (arg("mode") ?? "lost") as CrashMode);
  await stopServers();
  console.log(JSON.stringify(result, null, 2));
  process.exit(result.violations.length > 0 ? 1 : 0);
} else {
  const asked = arg("stores")?.split(",") ?? ["memory", "sqlite"];
  const unknown = asked.filter((name) => !isStoreName(name));
  if (unknown.length > 0) {
    console.error(`chaos: unknown store ${unknown.join(", ")} (the stores: memory, sqlite, redis, postgres)`);
    process.exit(2);
  }
  // A store whose server is not installed is skipped, not failed: the run covers the others.
  const stores = (asked as StoreName[]).filter((store) => {
    const missing = storeMissing(store);
    if (missing) console.log(`chaos: ${store} skipped: ${missing}`);
    return !missing;
  });
  const seeds = num("seeds", full ? 30 : 4);
  const firstSeed = num("first-seed", 1);
  const workers = num("workers", availableParallelism());
  const jobs: Job[] = [];
  for (let seed = firstSeed; seed < firstSeed + seeds; seed++) for (const store of stores) jobs.push({ store, seed });
  const record = process.argv.includes("--record");
  const runContext = startContext(process.argv.slice(2));
  console.log(`chaos: stores ${stores.join(", ")}, seeds ${firstSeed}..${firstSeed + seeds - 1}, ${points === 0 ? "every operation" : `${points} points per seed`}, modes ${modes.join(", ")}, ${workers} workers`);
  const started = performance.now();
  const byStore = new Map<StoreName, SweepTotals>(stores.map((store) => [store, emptyTotals()]));
  const self = fileURLToPath(import.meta.url);
  await Promise.all(
    Array.from({ length: Math.min(workers, jobs.length) }, () =>
      new Promise<void>((resolve, reject) => {
        const child = fork(self, ["--worker", ...process.argv.slice(2)], { execArgv: [...process.execArgv, "--no-warnings"] });
        const nextJob = (): void => {
          const job = jobs.shift();
          child.send(job ?? "done");
        };
        child.on("message", (message: "ready" | { job: Job; totals: SweepTotals }) => {
          if (message !== "ready") {
            addTotals(byStore.get(message.job.store)!, message.totals);
            const late = message.totals.late.length > 0 ? `, ${message.totals.late.length} settled late` : "";
            console.log(`${((performance.now() - started) / 1000).toFixed(1)} s ${message.job.store} seed ${message.job.seed}: ${message.totals.operations} operations, ${message.totals.points} crash points, ${message.totals.failures.length} violations${late}`);
            for (const failure of message.totals.failures.slice(0, 5)) console.log(`  ${failure}`);
            for (const slow of message.totals.late.slice(0, 5)) console.log(`  ${slow}`);
          }
          nextJob();
        });
        child.on("exit", (code) => (code === 0 ? resolve() : reject(new Error(`a chaos worker exited with ${code}`))));
      }),
    ),
  );
  const seconds = (performance.now() - started) / 1000;
  const all = emptyTotals();
  console.log("\n| store | crash points | acknowledged messages checked | turns closed by recovery | outcome_unknown results | approval decisions checked | schedule slots checked | reminder deliveries checked | violations |");
  console.log("|---|---|---|---|---|---|---|---|---|");
  for (const [store, totals] of byStore) {
    addTotals(all, totals);
    console.log(`| ${store} | ${totals.points} | ${totals.checked} | ${totals.restartedTurns} | ${totals.unknownOutcomes} | ${totals.decisions} | ${totals.slots} | ${totals.reminders} | ${totals.failures.length} |`);
  }
  console.log(`| all | ${all.points} | ${all.checked} | ${all.restartedTurns} | ${all.unknownOutcomes} | ${all.decisions} | ${all.slots} | ${all.reminders} | ${all.failures.length} |`);
  console.log(`\n${all.points} crash points in ${seconds.toFixed(1)} s: ${all.failures.length} violations`);
  for (const failure of all.failures.slice(0, 50)) console.log(`  ${failure}`);
  // Slow, not stuck (./settle.ts): listed apart, and no cause for a failing exit.
  if (all.late.length > 0) console.log(`\n${all.late.length} session(s) settled late, after the settling deadline:`);
  for (const slow of all.late.slice(0, 50)) console.log(`  ${slow}`);
  if (record && stores.length > 0) {
    const result: SweepRecord = {
      ...finished(runContext, seconds),
      seeds: [firstSeed, firstSeed + seeds - 1],
      modes,
      pointsPerSeed: points === 0 ? "every operation" : points,
      stores: Object.fromEntries([...byStore].map(([store, totals]) => [store, { ...totals }])),
    };
    console.log(`chaos: recorded ${writeResult(sweepFileName(stores), result)}, rendered ${writeReport()}`);
  }
  process.exit(all.failures.length > 0 ? 1 : 0);
}
