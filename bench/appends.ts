/**
 * Event appends per second on the sqlite driver (writer thread, and inline on the event loop) and
 * the memory driver, against raw `fs.promises.appendFile` of the same NDJSON lines and the durable
 * floor (`write` + `fdatasync` per line), in the same run.
 *
 * Run: `npx node bench/appends.ts` (env: `BENCH_APPENDS` total appends per case, default 5000;
 * `BENCH_ROUNDS` rounds, median reported, default 3). Data goes to `bench/.data/` and is removed.
 * @module
 */

import { appendFile, mkdir, open, rm, type FileHandle } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createSqliteStorage } from "../drivers/sqlite/index.ts";
import { createMemoryStorage } from "../src/base/storage/memory.ts";

const TOTAL = Number(process.env.BENCH_APPENDS ?? 5_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const WRITERS = 50;
const dataRoot = join(fileURLToPath(new URL(".", import.meta.url)), ".data", `appends-${process.pid}`);

/** A realistic event line, about 300 bytes. */
function eventLine(index: number): string {
  return JSON.stringify({
    index,
    type: "message.appended",
    sessionId: "ses_01J9Z3K7Q8W2X4Y6V5T3R1P0NM",
    turnId: "turn_01J9Z3K8A1B2C3D4E5F6G7H8JK",
    at: new Date(1_760_000_000_000 + index).toISOString(),
    data: { delta: "The quick brown fox jumps over the lazy dog. ".repeat(3).slice(0, 120 - String(index).length) },
  });
}

type Mode = "appendFile" | "floor" | "sqlite" | "inline" | "memory";

/**
 * `writers` concurrent writers, each doing `perWriter` sequential awaited appends, each to its own
 * log, or all to one log when `shared`.
 */
async function runCase(mode: Mode, writers: number, perWriter: number, shared: boolean, dir: string): Promise<number> {
  await mkdir(dir, { recursive: true });
  const driver =
    mode === "sqlite" || mode === "inline"
      ? createSqliteStorage({ path: join(dir, "state.db"), writerThread: mode === "sqlite" })
      : mode === "memory"
        ? createMemoryStorage()
        : undefined;
  const handles = new Map<string, FileHandle>();
  if (mode === "floor") {
    for (let writer = 0; writer < (shared ? 1 : writers); writer++) {
      handles.set(join(dir, `s${writer}.ndjson`), await open(join(dir, `s${writer}.ndjson`), "a"));
    }
  }
  const start = performance.now();
  await Promise.all(
    Array.from({ length: writers }, async (_, writer) => {
      const log = `sessions/s${shared ? 0 : writer}/events`;
      const path = join(dir, `s${shared ? 0 : writer}.ndjson`);
      for (let i = 0; i < perWriter; i++) {
        const line = eventLine(i);
        if (driver) await driver.append(log, [line]);
        else if (mode === "appendFile") await appendFile(path, `${line}\n`);
        else await durableWrite(handles.get(path), `${line}\n`);
      }
    }),
  );
  const seconds = (performance.now() - start) / 1000;
  if (driver) {
    const logs = shared ? 1 : writers;
    const expected = shared ? writers * perWriter : perWriter;
    for (let writer = 0; writer < logs; writer++) {
      const length = await driver.length(`sessions/s${writer}/events`);
      if (length !== expected) throw new Error(`log ${writer} has ${length} lines, expected ${expected}`);
    }
    await driver.close();
  }
  for (const handle of handles.values()) await handle.close();
  await rm(dir, { recursive: true, force: true });
  return (writers * perWriter) / seconds;
}

/** The durable floor: one write and one fdatasync per line on a descriptor kept open. */
async function durableWrite(handle: FileHandle | undefined, text: string): Promise<void> {
  if (!handle) throw new Error("no handle");
  await handle.write(text);
  await handle.datasync();
}

const LABELS: Record<Mode, string> = {
  appendFile: "raw `fs.promises.appendFile` (baseline)",
  floor: "raw `write` + `fdatasync` per line, fd kept open",
  sqlite: "sqlite driver (writer thread, the default)",
  inline: "sqlite driver, writes inline on the event loop",
  memory: "memory driver (not durable)",
};

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

async function main(): Promise<void> {
  const workloads = [
    { name: "sequential, 1 log", writers: 1, perWriter: TOTAL, shared: false },
    { name: `${WRITERS} concurrent writers, ${WRITERS} logs`, writers: WRITERS, perWriter: Math.ceil(TOTAL / WRITERS), shared: false },
    // Not a baseline comparison of interest in itself: shows group commit at work.
    { name: `${WRITERS} concurrent writers, 1 log`, writers: WRITERS, perWriter: Math.ceil(TOTAL / WRITERS), shared: true },
  ];
  const modes: Mode[] = ["appendFile", "floor", "sqlite", "inline", "memory"];
  const rows: string[] = [];
  let run = 0;
  for (const workload of workloads) {
    const rates = new Map<Mode, number[]>(modes.map((mode) => [mode, []]));
    for (let round = 0; round < ROUNDS; round++) {
      // Interleaved, so drift on a shared machine hits every mode alike.
      for (const mode of modes) {
        rates.get(mode)?.push(await runCase(mode, workload.writers, workload.perWriter, workload.shared, join(dataRoot, String(run++))));
      }
    }
    const baseline = median(rates.get("appendFile") ?? []);
    for (const mode of modes) {
      const rate = median(rates.get(mode) ?? []);
      const label = LABELS[mode];
      rows.push(`| ${workload.name} | ${label} | ${Math.round(rate).toLocaleString("en-US")} | ${(rate / baseline).toFixed(2)} |`);
    }
  }
  await rm(dataRoot, { recursive: true, force: true });
  console.log(`Node ${process.version}, ${TOTAL} appends of a ${eventLine(0).length + 1}-byte line per case, median of ${ROUNDS} rounds\n`);
  console.log("| workload | writer | appends/s | ratio to appendFile |");
  console.log("|---|---|---:|---:|");
  for (const row of rows) console.log(row);
}

await main();
