/**
 * Renders docs/reliability.md from the recorded results (./results.ts) and the fixed prose of
 * ./reliability.template.md: the claim paragraph, the counts per store (and per store and runtime
 * for the process deaths), each run's command, date, machine and load, its seeds and the
 * arguments that replay each violation. Every number in the document comes from a results file.
 * Totals are rendered field by field with a label map, so a count added to `SweepTotals`
 * (./sweep.ts) or to a process-death run shows up with its key as label until it is given one.
 *
 *   npm run chaos -- --report
 * @module
 */
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { type KillRecord, type KillRun, readResults, type Results, RESULTS_DIR, type RunContext, type StoreTotals, type SweepRecord } from "./results.ts";

export const REPORT_PATH = fileURLToPath(new URL("../../docs/reliability.md", import.meta.url));
const TEMPLATE_PATH = fileURLToPath(new URL("./reliability.template.md", import.meta.url));

/** Column labels of the sweep's totals, in this order; a field not named here goes after them under its key. */
const SWEEP_LABELS: Record<string, string> = {
  points: "crash points",
  checked: "acknowledged messages checked",
  restartedTurns: "turns closed by recovery",
  unknownOutcomes: "outcome_unknown results",
  decisions: "approval decisions checked",
  slots: "schedule slots checked",
  reminders: "reminder deliveries checked",
  inbound: "channel messages checked",
  deliveries: "channel deliveries checked",
  redeliveries: "delivered again across a crash",
  subagents: "subagent calls checked",
  a2aTasks: "A2A tasks checked",
  mcpTasks: "MCP tasks checked",
};
/** Operations of the uncrashed runs: the sweep's scale, not a check. */
const SWEEP_HIDDEN = new Set(["operations", "failures"]);

const KILL_LABELS: Record<string, string> = {
  deaths: "process deaths",
  sessions: "sessions",
  acknowledgedMessages: "acknowledged messages checked",
  followerStreams: "follower streams checked",
  toolRuns: "tool runs in the ledger",
  closedByRecovery: "turns closed by recovery",
  outcomeUnknown: "outcome_unknown results",
  approvalDecisions: "approval decisions checked",
};
const KILL_HIDDEN = new Set(["store", "runtime", "seed", "violations", "seconds"]);

/** How many violations a listing shows before it says how many more there are. */
const LISTED = 50;

const n = (value: number): string => value.toLocaleString("en-US");
const s = (count: number, one: string, many = `${one}s`): string => `${n(count)} ${count === 1 ? one : many}`;
const cap = (text: string): string => `${text.slice(0, 1).toUpperCase()}${text.slice(1)}`;
const list = (items: readonly string[]): string => (items.length <= 1 ? (items[0] ?? "") : `${items.slice(0, -1).join(", ")} and ${items.at(-1)}`);

/** The numeric fields of some rows, labelled ones first in the label map's order, then the others as they come. */
function columns(rows: ReadonlyArray<Record<string, unknown>>, labels: Record<string, string>, hidden: ReadonlySet<string>): string[] {
  const present = new Set<string>();
  for (const row of rows) for (const [key, value] of Object.entries(row)) if (typeof value === "number" && !hidden.has(key)) present.add(key);
  return [...Object.keys(labels).filter((key) => present.has(key)), ...[...present].filter((key) => !(key in labels))];
}

function table(header: readonly string[], rows: ReadonlyArray<readonly string[]>): string {
  return [`| ${header.join(" | ")} |`, `|${header.map(() => "---").join("|")}|`, ...rows.map((row) => `| ${row.join(" | ")} |`)].join("\n");
}

const load = (figures: readonly number[]): string => (figures.length > 0 ? figures.map((f) => f.toFixed(2)).join(" / ") : "not recorded");
const loads = (run: RunContext): string =>
  run.loadBefore.length + run.loadAfter.length > 0
    ? `load average (1 / 5 / 15 min) ${load(run.loadBefore)} before and ${load(run.loadAfter)} after`
    : "load average not recorded";

/** The line that says how, when and where a run ran. */
function context(run: RunContext, transcribed?: boolean): string {
  // A transcribed record knows its day, not its hour.
  const date = transcribed ? run.date.slice(0, 10) : `${run.date.slice(0, 16).replace("T", " ")} UTC`;
  return [
    `\`${run.command}\`, ${date}${run.revision ? `, at \`${run.revision}\`` : ""}, Node ${run.node}, ${s(run.cpus, "core")}, ${loads(run)}; ${n(run.seconds)} s.`,
    ...(transcribed ? ["*Transcribed from an earlier hand-written record of this run, not recorded by the command.*"] : []),
  ].join(" ");
}

const count = (totals: StoreTotals, key: string): number => (typeof totals[key] === "number" ? (totals[key] as number) : 0);

function sum(all: readonly StoreTotals[]): StoreTotals {
  const out: StoreTotals = { failures: [] };
  for (const totals of all) {
    for (const [key, value] of Object.entries(totals)) {
      if (typeof value === "number") out[key] = count(out, key) + value;
    }
    out.failures.push(...totals.failures);
    out.late = [...lateOf(out), ...lateOf(totals)];
  }
  return out;
}

/** Sessions that rested only in the late window (./settle.ts); a record from before it has none. */
const lateOf = (totals: StoreTotals): string[] => (Array.isArray(totals.late) ? totals.late : []);

const lateList = (late: readonly string[]): string => {
  if (late.length === 0) return "";
  const shown = late.slice(0, LISTED).map((slow) => `- ${slow}`);
  const more = late.length > LISTED ? [`- … and ${n(late.length - LISTED)} more (the command prints them all)`] : [];
  return `\n\nSettled late (slow, not stuck: each rested after the settling deadline, within the late window; not violations):\n\n${[...shown, ...more].join("\n")}`;
};

const points = (record: SweepRecord): string =>
  record.pointsPerSeed === "every operation" ? "every storage operation" : `${s(record.pointsPerSeed, "sampled point")} per seed and mode`;

const seedRange = (record: SweepRecord): string => {
  const [first, last] = record.seeds;
  return first === last ? `seed ${first}` : `seeds ${first}–${last}`;
};

const violationList = (failures: readonly string[], replay: string): string => {
  if (failures.length === 0) return "";
  const shown = failures.slice(0, LISTED).map((failure) => `- ${failure}`);
  const more = failures.length > LISTED ? [`- … and ${n(failures.length - LISTED)} more (the command prints them all)`] : [];
  return `\n\nViolations (${replay}):\n\n${[...shown, ...more].join("\n")}`;
};

/** One sweep's section: its context, the totals per store, its seeds and its violations. */
function sweepSection(title: string, file: string, record: SweepRecord): string {
  const stores = Object.entries(record.stores);
  const all = sum(stores.map(([, totals]) => totals));
  const keys = columns([...stores.map(([, totals]) => totals), all], SWEEP_LABELS, SWEEP_HIDDEN);
  const row = (name: string, totals: StoreTotals): string[] => [name, ...keys.map((key) => n(count(totals, key))), n(totals.failures.length)];
  return [
    `### ${title} (\`bench/chaos/results/${file}\`)`,
    "",
    `${context(record, record.transcribed)} ${cap(seedRange(record))}, ${points(record)}, ${record.modes.length === 1 ? "crash mode" : "crash modes"} ${list(record.modes)}; ${n(count(all, "operations"))} storage operations in the uncrashed runs.`,
    "",
    table(["store", ...keys.map((key) => SWEEP_LABELS[key] ?? key), "violations"], [...stores.map(([name, totals]) => row(name, totals)), ...(stores.length > 1 ? [row("all", all)] : [])]),
    "",
    "Counts are summed over crash points: one session's message is checked again at every point after it was acknowledged. " +
      `Any crash point of this run replays alone: \`npm run chaos -- --store=<store> --seed=<${record.seeds[0]}…${record.seeds[1]}> --at=<N> --mode=<${record.modes.join("|")}>\`.` +
      violationList(all.failures, "each begins with the arguments that replay it: `npm run chaos -- --store=… --seed=… --at=… --mode=…`") +
      lateList(lateOf(all)),
  ].join("\n");
}

function killTotals(runs: readonly KillRun[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const run of runs) for (const [key, value] of Object.entries(run)) if (typeof value === "number" && key !== "seed") out[key] = (out[key] ?? 0) + value;
  return out;
}

function killSection(record: KillRecord): string {
  const groups = new Map<string, KillRun[]>();
  for (const run of record.runs) groups.set(`${run.store}\u0000${run.runtime}`, [...(groups.get(`${run.store}\u0000${run.runtime}`) ?? []), run]);
  const keys = columns(record.runs, KILL_LABELS, KILL_HIDDEN);
  const label = (key: string): string => KILL_LABELS[key] ?? key;
  const byGroup = [...groups].map(([group, runs]) => {
    const [store, runtime] = group.split("\u0000");
    const totals = killTotals(runs);
    return [store!, runtime!, ...keys.map((key) => n(totals[key] ?? 0)), n(runs.reduce((sum, run) => sum + run.violations.length, 0))];
  });
  const all = killTotals(record.runs);
  const violations = record.runs.flatMap((run) => run.violations.map((violation) => `seed ${run.seed} (${run.store}, ${run.runtime}): ${violation}`));
  return [
    "### Real process deaths (`bench/chaos/results/kill.json`)",
    "",
    context(record, record.transcribed),
    "",
    table(
      ["store", "runtime", ...keys.map(label), "violations"],
      [...byGroup, ...(groups.size > 1 ? [["all", "", ...keys.map((key) => n(all[key] ?? 0)), n(violations.length)]] : [])],
    ),
    "",
    "The runs, each replayed by the command above narrowed to its store, runtime and seed:",
    "",
    table(
      ["store", "runtime", "seed", "process deaths", "violations", "seconds"],
      record.runs.map((run) => [run.store, run.runtime, String(run.seed), n(run.deaths), n(run.violations.length), n(run.seconds)]),
    ) + violationList(violations, "each with the run that found it"),
  ].join("\n");
}

const NO_SWEEP = "### Crash points in process (`bench/chaos/results/sweep.json`)\n\nNo recorded run: `npm run chaos -- --full --record` records one.";
const NO_KILL = "### Real process deaths (`bench/chaos/results/kill.json`)\n\nNo recorded run: `npm run chaos -- --kill --record` records one.";

/** What 0 violations means, said once in the claim. */
const NOTHING =
  "no acknowledged message lost, no gap or repeat in any event log, no follower shown a byte the log does not hold, no turn left open, no non-idempotent tool body run twice, no side effect without its record, no approval decision lost or applied twice, no schedule slot fired twice, no reminder delivered twice";

function sweepClaim(record: SweepRecord, file: string, first: boolean): string {
  const stores = Object.keys(record.stores);
  const all = sum(Object.values(record.stores));
  const seedCount = record.seeds[1] - record.seeds[0] + 1;
  const found = all.failures.length;
  return [
    `On ${record.date.slice(0, 10)}, \`${record.command}\` crashed the host at ${n(count(all, "points"))} points — ${points(record)} of ${s(seedCount, "seeded workload")}, on the ${list(stores)} ${stores.length === 1 ? "store" : "stores"}, each point in ${record.modes.length === 1 ? `the ${record.modes[0]} crash mode` : `the ${list(record.modes)} crash modes`} —`,
    first ? "recovered each on a new host, and checked the oracles below after every recovery:" : "with the same recovery and oracles:",
    found === 0 ? `**0 violations**${first ? `: ${NOTHING}` : ""}.` : `**${s(found, "violation")}**, listed below with the arguments that replay each.`,
    `It took ${n(record.seconds)} s on ${s(record.cpus, "core")} (\`bench/chaos/results/${file}\`${record.transcribed ? ", transcribed from an earlier hand-written record, not recorded by the command" : ""}).`,
  ].join(" ");
}

function killClaim(record: KillRecord): string {
  const all = killTotals(record.runs);
  const pairs = [...new Set(record.runs.map((run) => `${run.store} on ${cap(run.runtime)}`))];
  const found = record.runs.reduce((sum, run) => sum + run.violations.length, 0);
  const seen = (["sessions", "acknowledgedMessages", "toolRuns", "approvalDecisions"] as const)
    .filter((key) => all[key] !== undefined)
    .map((key) => `${n(all[key]!)} ${KILL_LABELS[key]!.replace(/ (checked|in the ledger)$/, "")}`);
  return [
    `On ${record.date.slice(0, 10)}, \`${record.command}\` SIGKILLed real \`agent-serve serve\` processes ${s(all["deaths"] ?? 0, "time")} (${list(pairs)}) under the same workload, over HTTP`,
    seen.length > 0 ? `(${list(seen)}),` : "",
    `with the same oracles after the last restart: ${found === 0 ? "**0 violations**" : `**${s(found, "violation")}**`}`,
    `(\`bench/chaos/results/kill.json\`${record.transcribed ? ", transcribed from an earlier hand-written record, not recorded by the command" : ""}).`,
  ]
    .filter(Boolean)
    .join(" ");
}

export function renderReport(results: Results, template = readFileSync(TEMPLATE_PATH, "utf8")): string {
  const claims = [
    results.sweep ? sweepClaim(results.sweep, "sweep.json", true) : "No in-process sweep of memory and sqlite is recorded (`bench/chaos/results/sweep.json`).",
    ...results.sampled.map(({ file, record }) => sweepClaim(record, file, !results.sweep)),
    results.kill ? killClaim(results.kill) : "No run of real process deaths is recorded (`bench/chaos/results/kill.json`).",
    "The recorded runs below give each figure with its machine and load; bench/README.md (\"Crash points in process\") holds the earlier runs.",
  ];
  const parts: Record<string, string> = {
    notice:
      "<!-- Rendered by bench/chaos/report.ts from bench/chaos/results/*.json and bench/chaos/reliability.template.md; edit those, then `npm run chaos -- --report`. -->",
    claim: claims.join("\n\n"),
    sweep: results.sweep ? sweepSection("Crash points in process", "sweep.json", results.sweep) : NO_SWEEP,
    sampled: results.sampled.length > 0
      ? results.sampled.map(({ file, record }) => sweepSection(`Crash points on ${list(Object.keys(record.stores))}, sampled`, file, record)).join("\n\n")
      : "### Crash points on Redis and Postgres, sampled\n\nNo recorded run: `npm run chaos -- --stores=redis,postgres --seeds=30 --points=12 --record` records one.",
    kill: results.kill ? killSection(results.kill) : NO_KILL,
  };
  return template.replace(/\{\{(\w+)\}\}/g, (_, name: string) => {
    const part = parts[name];
    if (part === undefined) throw new Error(`reliability.template.md names an unknown part {{${name}}}`);
    return part;
  });
}

/** Renders the document from the results files and writes it; answers its path. */
export function writeReport(dir = RESULTS_DIR, path = REPORT_PATH): string {
  writeFileSync(path, renderReport(readResults(dir)));
  return path;
}
