/**
 * What the hosts a sweep abandons cost the worker that runs them (docs/design/chaos-seed28.md):
 * N crash points in one process, the abandoned host of each left running (the baseline, as the
 * harness once did) or closed once its point is judged (now), each variant in a fresh child
 * process, rounds alternated. Reported: the timers still there after the points and a 3 s pause,
 * the CPU the process spends while idle, its event-loop delay then, and the wall time of the
 * target point (sqlite, seed 28, point 156, lost) run after them.
 *
 *   npx node bench/chaos/abandoned.ts [--points=300] [--rounds=2]
 * @module
 */
import { fork } from "node:child_process";
import { fileURLToPath } from "node:url";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { crashPoint } from "./crash-point.ts";

const arg = (name: string, fallback: number): number => Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.split("=")[1] ?? fallback);

interface Sample {
  variant: "kept" | "closed";
  pointsSeconds: number;
  timers: number;
  idleCpuMsPerS: number;
  loopDelayP99Ms: number;
  targetSeconds: number;
}

const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

async function child(variant: Sample["variant"], points: number): Promise<Sample> {
  const keepAbandoned = variant === "kept";
  const started = performance.now();
  // Seed 28's points from its first parked turn on: every abandoned host holds a turn.
  for (let i = 0; i < points; i++) await crashPoint("sqlite", 28, 90 + (i % 100), i % 2 === 0 ? "lost" : "landed", undefined, { keepAbandoned });
  const pointsSeconds = (performance.now() - started) / 1000;
  await pause(3_000);
  const timers = process.getActiveResourcesInfo().filter((resource) => resource === "Timeout").length;
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  const cpu = process.cpuUsage();
  await pause(3_000);
  const used = process.cpuUsage(cpu);
  delay.disable();
  const target = performance.now();
  await crashPoint("sqlite", 28, 156, "lost", undefined, { keepAbandoned });
  return {
    variant,
    pointsSeconds,
    timers,
    idleCpuMsPerS: (used.user + used.system) / 1000 / 3,
    loopDelayP99Ms: delay.percentile(99) / 1e6,
    targetSeconds: (performance.now() - target) / 1000,
  };
}

function run(variant: Sample["variant"], points: number): Promise<Sample> {
  return new Promise((resolve, reject) => {
    const worker = fork(fileURLToPath(import.meta.url), [`--child=${variant}`, `--points=${points}`], { execArgv: [...process.execArgv, "--no-warnings"] });
    worker.on("message", (sample: Sample) => resolve(sample));
    worker.on("exit", (code) => (code === 0 ? undefined : reject(new Error(`the ${variant} child exited with ${code}`))));
  });
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

const variantArg = process.argv.find((a) => a.startsWith("--child="))?.split("=")[1] as Sample["variant"] | undefined;
const points = arg("points", 300);
if (variantArg) {
  process.send!(await child(variantArg, points));
  process.exit(0);
} else {
  const rounds = arg("rounds", 2);
  console.log(`abandoned hosts: ${points} crash points (sqlite, seed 28) per child, ${rounds} round(s), kept vs closed alternated`);
  const samples: Sample[] = [];
  for (let round = 0; round < rounds; round++) {
    const order: Array<Sample["variant"]> = round % 2 === 0 ? ["kept", "closed"] : ["closed", "kept"];
    for (const variant of order) {
      const sample = await run(variant, points);
      samples.push(sample);
      console.log(JSON.stringify(sample));
    }
  }
  const of = (variant: Sample["variant"], key: keyof Omit<Sample, "variant">): number => median(samples.filter((s) => s.variant === variant).map((s) => s[key]));
  const keys: Array<[keyof Omit<Sample, "variant">, string]> = [
    ["pointsSeconds", `wall time of the ${points} points (s)`],
    ["timers", "timers left after a 3 s pause"],
    ["idleCpuMsPerS", "idle CPU (ms per s)"],
    ["loopDelayP99Ms", "idle event-loop delay p99 (ms)"],
    ["targetSeconds", "wall time of the point after them (s)"],
  ];
  console.log("\n| median | abandoned hosts kept (baseline) | closed once judged | closed / kept |\n|---|---|---|---|");
  for (const [key, label] of keys) {
    const kept = of("kept", key);
    const closed = of("closed", key);
    console.log(`| ${label} | ${kept.toFixed(key === "timers" ? 0 : 2)} | ${closed.toFixed(key === "timers" ? 0 : 2)} | ${kept === 0 ? "–" : (closed / kept).toFixed(2)} |`);
  }
}
