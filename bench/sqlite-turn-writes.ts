/**
 * The storage writes and reads of one c=1 durable turn, replayed straight against the sqlite
 * driver (no HTTP, no engine), so the driver's own CPU per turn is measured without the rest of
 * the host's noise. The calls and their grouping follow `bench/trace-turn.ts`: the create's lease
 * and commit (5 records, 3 events, the user's message), a record read, `step.started`, a delta
 * and the step's end sent together, the stream's length and read, a record read, the turn's end
 * (5 records, 2 events), then the lease's release and the marker's removal. That is a turn's
 * pattern before the first step's start and the lease moved into the create's and the end's
 * commits (docs/design/speed.md); it is kept so that runs stay comparable with the earlier ones.
 *
 *   npx node bench/sqlite-turn-writes.ts [--turns=400] [--rounds=6] [--baseline=<checkout>] [--dir=<folder>] [--no-inline]
 *
 * This tree's driver runs with `inlineCommits: true` (docs/design/speed.md "A lone commit runs
 * inline") unless `--no-inline`.
 *
 * `--dir`: where the database files go (default: the OS temp dir). On a tmpfs (`/dev/shm`) a sync
 * costs nothing, which isolates what the driver itself spends per commit from the disk's share.
 *
 * With `--baseline=<dir>` (another checkout, `node_modules` linked) that tree's driver is loaded
 * too and the two alternate round by round in one process, each on its own file (WAL,
 * `synchronous=FULL`, the writer thread: the served default). CPU is the whole process's
 * (`process.cpuUsage`, the writer thread included).
 * @module
 */
import { mkdtemp, rm } from "node:fs/promises";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { createSqliteStorage } from "../drivers/sqlite/index.ts";
import type { StorageDriver } from "../src/base/storage/types.ts";
import { fmt, machineLine, median, option, printTable, tempDir } from "./_util.ts";

const turns = option("turns", 400);
const rounds = option("rounds", 6);
const inline = !process.argv.includes("--no-inline");
const dirOption = process.argv.find((arg) => arg.startsWith("--dir="))?.slice("--dir=".length);
const baselineDir = process.argv.find((arg) => arg.startsWith("--baseline="))?.slice("--baseline=".length);

type Create = typeof createSqliteStorage;
const codes: Array<{ name: string; create: Create }> = [{ name: "this code", create: createSqliteStorage }];
if (baselineDir) {
  const module = (await import(pathToFileURL(join(resolve(baselineDir), "drivers/sqlite/index.ts")).href)) as { createSqliteStorage: Create };
  codes.push({ name: "baseline", create: module.createSqliteStorage });
}

const line = JSON.stringify({
  type: "message.appended",
  index: 3,
  sessionId: "ses_0000000000000000000000",
  at: new Date(0).toISOString(),
  data: { text: "a reply of a few words from the model" },
});
const record = JSON.stringify({ sessionId: "ses_0000000000000000000000", status: "idle", title: "x".repeat(60), createdAt: new Date(0).toISOString(), turnCount: 1, channel: "http" });

async function turn(storage: StorageDriver, n: number): Promise<void> {
  const id = `ses_${n.toString(36).padStart(20, "0")}`;
  const events = `sessions/${id}/events`;
  const conversation = `sessions/${id}/conversation`;
  const records = [0, 1, 2, 3, 4].map((i) => ({ key: `sessions/${id}/r${i}`, value: record }));
  const lease = storage.acquireLease(`turns/${id}`, "bench", 30_000);
  await storage.commit({ records, appends: [{ log: events, lines: [line, line, line], expectedIndex: 0 }, { log: conversation, lines: [line] }] });
  await lease;
  await storage.get(`sessions/${id}/r0`);
  await storage.commit({ appends: [{ log: events, lines: [line], expectedIndex: 3 }] });
  const delta = storage.commit({ appends: [{ log: events, lines: [line], expectedIndex: 4 }] });
  await storage.commit({ appends: [{ log: events, lines: [line, line], expectedIndex: 5 }, { log: conversation, lines: [line] }] });
  await delta;
  await storage.length(events);
  for await (const batch of storage.read(events, 0)) void batch;
  await storage.get(`sessions/${id}/r0`);
  await storage.commit({ records, appends: [{ log: events, lines: [line, line], expectedIndex: 7 }] });
  await Promise.all([storage.releaseLease(`turns/${id}`, "bench"), storage.delete(`sessions/${id}/r4`)]);
}

console.log(`sqlite-turn-writes: ${turns} turns per round, ${rounds} rounds, files under ${dirOption ?? "the OS temp dir"}; ${machineLine()}`);
const dirs = await Promise.all(
  codes.map(async () => {
    if (!dirOption) return tempDir("turn-writes");
    const path = await mkdtemp(join(dirOption, "agent-serve-turn-writes-"));
    return { path, cleanup: () => rm(path, { recursive: true, force: true }) };
  }),
);
// `inlineCommits` is on by default in this tree; a baseline from before the option ignores it.
const stores = codes.map((code, i) => code.create({ path: join(dirs[i]!.path, "state.db"), inlineCommits: inline }));
const results = codes.map(() => ({ cpu: [] as number[], wall: [] as number[] }));
let n = 0;
for (const storage of stores) for (let i = 0; i < 50; i++) await turn(storage, n++);
for (let round = 0; round < rounds; round++) {
  // Alternate which code goes first, so neither always follows the other.
  const order = round % 2 === 0 ? codes.map((_, i) => i) : codes.map((_, i) => i).reverse();
  for (const i of order) {
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    for (let t = 0; t < turns; t++) await turn(stores[i]!, n++);
    const cpu = process.cpuUsage(cpu0);
    results[i]!.cpu.push((cpu.user + cpu.system) / 1000 / turns);
    results[i]!.wall.push((performance.now() - t0) / turns);
    console.log(`  round ${round + 1}, ${codes[i]!.name}: CPU ${fmt(results[i]!.cpu.at(-1)!)} ms/turn, wall ${fmt(results[i]!.wall.at(-1)!)} ms/turn`);
  }
}
for (const storage of stores) await storage.close();
for (const dir of dirs) await dir.cleanup();

const first = results[0]!;
printTable(
  ["code", "CPU ms/turn (median)", "per round", "wall ms/turn (median)", "CPU vs baseline (median of rounds)"],
  codes.map((code, i) => [
    code.name,
    fmt(median(results[i]!.cpu)),
    results[i]!.cpu.map((v) => fmt(v)).join(" / "),
    fmt(median(results[i]!.wall)),
    i === 0 && codes.length > 1 ? fmt(median(first.cpu.map((v, r) => v / results[1]!.cpu[r]!))) : "",
  ]),
);
