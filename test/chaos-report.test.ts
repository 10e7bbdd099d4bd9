/**
 * docs/reliability.md is rendered from the recorded chaos results (bench/chaos/report.ts): the
 * committed document is what the committed results render to, every count comes from a results
 * file (a field the renderer has no label for shows under its key), a missing file renders as
 * "no recorded run", and a violation is listed with the arguments that replay it.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { REPORT_PATH, renderReport } from "../bench/chaos/report.ts";
import { type KillRecord, readResults, type SweepRecord, sweepFileName, writeResult } from "../bench/chaos/results.ts";

const context = { date: "2026-11-27T10:00:00.000Z", node: "v22.0.0", cpus: 2, loadBefore: [1.5, 2, 2.5], loadAfter: [3, 2, 1], seconds: 12.5 };

const totals = (points: number, failures: string[] = []) => ({
  points,
  operations: 1000,
  checked: 2 * points,
  restartedTurns: 7,
  unknownOutcomes: 3,
  decisions: 4,
  slots: 5,
  reminders: 6,
  subagentRuns: 1234,
  failures,
});

const sweep: SweepRecord = {
  command: "npm run chaos -- --full --seeds=2 --record",
  ...context,
  seeds: [1, 2],
  modes: ["lost", "landed"],
  pointsPerSeed: "every operation",
  stores: { memory: totals(600), sqlite: totals(650) },
};

const kill: KillRecord = {
  command: "npm run chaos -- --kill --deaths=30 --record",
  ...context,
  runs: [
    { store: "sqlite", runtime: "node", seed: 1, deaths: 20, sessions: 10, acknowledgedMessages: 15, followerStreams: 10, toolRuns: 8, closedByRecovery: 2, outcomeUnknown: 1, approvalDecisions: 3, violations: [], seconds: 40 },
    { store: "redis", runtime: "bun", seed: 2, deaths: 10, sessions: 5, acknowledgedMessages: 6, followerStreams: 5, toolRuns: 4, closedByRecovery: 1, outcomeUnknown: 0, approvalDecisions: 1, violations: ["session s9 lost message m3"], seconds: 20, channelDeliveries: 77 },
  ],
};

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

function render(files: Record<string, SweepRecord | KillRecord>): string {
  dir = mkdtempSync(join(tmpdir(), "agent-serve-chaos-report-"));
  for (const [name, record] of Object.entries(files)) writeResult(name, record, dir);
  return renderReport(readResults(dir));
}

describe("the reliability report", () => {
  it("is what the recorded results render to", () => {
    expect(readFileSync(REPORT_PATH, "utf8")).toBe(renderReport(readResults()));
  });

  it("fills the claim and the tables from the results, an unlabelled count under its key", () => {
    const text = render({ "sweep.json": sweep, "kill.json": kill });
    expect(text).toContain("`npm run chaos -- --full --seeds=2 --record` crashed the host at 1,250 points — every storage operation of 2 seeded workloads, on the memory and sqlite stores");
    expect(text).toContain("**0 violations**: no acknowledged message lost");
    expect(text).toContain("| store | crash points | acknowledged messages checked | turns closed by recovery | outcome_unknown results | approval decisions checked | schedule slots checked | reminder deliveries checked | subagentRuns | violations |");
    expect(text).toContain("| all | 1,250 | 2,500 | 14 | 6 | 8 | 10 | 12 | 2,468 | 0 |");
    expect(text).toContain("load average (1 / 5 / 15 min) 1.50 / 2.00 / 2.50 before and 3.00 / 2.00 / 1.00 after; 12.5 s");
    // Deaths per store and runtime, the extra field under its key, and the violation with its run.
    expect(text).toContain("On 2026-11-27, `npm run chaos -- --kill --deaths=30 --record` SIGKILLed real `agent-serve serve` processes 30 times (sqlite on Node and redis on Bun)");
    expect(text).toContain("| redis | bun | 10 | 5 | 6 | 5 | 4 | 1 | 0 | 1 | 77 | 1 |");
    expect(text).toContain("- seed 2 (redis, bun): session s9 lost message m3");
    expect(text).not.toMatch(/\{\{\w+\}\}/);
  });

  it("says what is not recorded, and marks transcribed figures", () => {
    const text = render({ "sweep.json": { ...sweep, transcribed: true } });
    expect(text).toContain("No run of real process deaths is recorded (`bench/chaos/results/kill.json`)");
    expect(text).toContain("No recorded run: `npm run chaos -- --kill --record` records one.");
    expect(text).toContain("transcribed from an earlier hand-written record, not recorded by the command");
    expect(text).toContain("*Transcribed from an earlier hand-written record of this run, not recorded by the command.*");
  });

  it("lists each violation with the arguments that replay it, and a server store's sweep beside the claim", () => {
    const failing = "--store=redis --seed=4 --at=17 --mode=landed: session s1 lost message m2";
    const servers: SweepRecord = { ...sweep, command: "npm run chaos -- --stores=redis,postgres --points=5 --record", pointsPerSeed: 5, stores: { redis: totals(20, [failing]), postgres: totals(20) } };
    expect(sweepFileName(["redis", "postgres"])).toBe("sweep-redis-postgres.json");
    expect(sweepFileName(["sqlite"])).toBe("sweep.json");
    const text = render({ "sweep.json": sweep, "sweep-redis-postgres.json": servers });
    expect(text).toContain("crashed the host at 40 points — 5 sampled points per seed and mode of 2 seeded workloads, on the redis and postgres stores");
    expect(text).toContain("**1 violation**, listed below with the arguments that replay each.");
    expect(text).toContain("### Crash points on redis and postgres, sampled (`bench/chaos/results/sweep-redis-postgres.json`)");
    expect(text).toContain(`- ${failing}`);
  });
});

// The results files are plain JSON a reader can diff: a record written is the record read back.
it("a record written is read back as it was", () => {
  dir = mkdtempSync(join(tmpdir(), "agent-serve-chaos-report-"));
  writeResult("kill.json", kill, dir);
  expect(readResults(dir).kill).toEqual(kill);
  writeFileSync(join(dir, "sweep-redis.json"), JSON.stringify(sweep));
  expect(readResults(dir).sampled.map(({ file }) => file)).toEqual(["sweep-redis.json"]);
});
