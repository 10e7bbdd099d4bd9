/**
 * The recorded results of the chaos runs, from which docs/reliability.md is rendered
 * (./report.ts): `results/sweep.json` (the in-process sweep on memory and sqlite, the claim),
 * `results/sweep-<stores>.json` (a sweep that runs a server store: its own sampled figure, so
 * recording it never overwrites the claim) and `results/kill.json` (real process deaths, written
 * by ./kill.ts). A run records with `--record`; every record re-renders the document.
 * @module
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { availableParallelism, loadavg } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export const RESULTS_DIR = fileURLToPath(new URL("./results/", import.meta.url));

/** What every recorded run says of how and where it ran. */
export interface RunContext {
  command: string;
  /** ISO date of the run's start. */
  date: string;
  node: string;
  /** The commit the run's code was at (`git describe --always --dirty`), when it ran in a checkout. */
  revision?: string;
  cpus: number;
  loadBefore: number[];
  loadAfter: number[];
  seconds: number;
}

/** One store's totals: ./sweep.ts `SweepTotals`, whatever numeric fields it has, and its failures. */
export type StoreTotals = { failures: string[] } & Record<string, number | string[]>;

export interface SweepRecord extends RunContext {
  seeds: [number, number];
  modes: string[];
  pointsPerSeed: number | "every operation";
  stores: Record<string, StoreTotals>;
  /** Set on figures copied from an earlier document rather than recorded by the command. */
  transcribed?: boolean;
}

export interface KillRun {
  store: string;
  runtime: string;
  seed: number;
  deaths: number;
  violations: string[];
  seconds: number;
  [count: string]: number | string | string[];
}

export interface KillRecord extends RunContext {
  runs: KillRun[];
  transcribed?: boolean;
}

/** The load average as recorded: the 1, 5 and 15 minute figures, two decimals. */
export const loadNow = (): number[] => loadavg().map((load) => Math.round(load * 100) / 100);

/** The checkout's commit, so a recorded figure names the code it measured; none outside a checkout. */
function revision(): string | undefined {
  try {
    return execFileSync("git", ["describe", "--always", "--dirty"], { cwd: fileURLToPath(new URL("../..", import.meta.url)), encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim() || undefined;
  } catch {
    return undefined;
  }
}

/** The context of a run starting now; `seconds` and `loadAfter` are filled in by `finished`. */
export function startContext(argv: readonly string[]): RunContext {
  return {
    command: ["npm run chaos", ...(argv.length > 0 ? ["--", ...argv] : [])].join(" "),
    date: new Date().toISOString(),
    node: process.version,
    revision: revision(),
    cpus: availableParallelism(),
    loadBefore: loadNow(),
    loadAfter: [],
    seconds: 0,
  };
}

export function finished<T extends RunContext>(record: T, seconds: number): T {
  return { ...record, loadAfter: loadNow(), seconds: Math.round(seconds * 10) / 10 };
}

/** `sweep.json` for the memory and sqlite stores (the claim), `sweep-<stores>.json` otherwise. */
export function sweepFileName(stores: readonly string[]): string {
  return stores.every((store) => store === "memory" || store === "sqlite") ? "sweep.json" : `sweep-${stores.join("-")}.json`;
}

export function writeResult(name: string, record: SweepRecord | KillRecord, dir = RESULTS_DIR): string {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, name);
  writeFileSync(path, `${JSON.stringify(record, null, 2)}\n`);
  return path;
}

export interface Results {
  /** `sweep.json`, when recorded. */
  sweep?: SweepRecord;
  /** Every `sweep-*.json`, by file name. */
  sampled: Array<{ file: string; record: SweepRecord }>;
  kill?: KillRecord;
}

export function readResults(dir = RESULTS_DIR): Results {
  const read = <T>(file: string): T | undefined => (existsSync(join(dir, file)) ? (JSON.parse(readFileSync(join(dir, file), "utf8")) as T) : undefined);
  const files = existsSync(dir) ? readdirSync(dir).sort() : [];
  const sweep = read<SweepRecord>("sweep.json");
  const kill = read<KillRecord>("kill.json");
  return {
    ...(sweep ? { sweep } : {}),
    sampled: files.filter((file) => /^sweep-.+\.json$/.test(file)).map((file) => ({ file, record: read<SweepRecord>(file)! })),
    ...(kill ? { kill } : {}),
  };
}
