/**
 * `ctx.host.kv` against the storage port it sits on: put+get pairs per second through the kv
 * facade (unstorage, key encoding, JSON checks, expiry meta) and through the driver directly,
 * with the memory driver (CPU overhead) and the fs driver (what a served agent uses by default).
 *
 * Run: `npx node bench/kv.ts` (env: `BENCH_KV_OPS` pairs per case, default 2000; `BENCH_ROUNDS`
 * rounds, median reported, default 5). Data goes to `bench/.data/` and is removed.
 * @module
 */
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createSqliteStorage } from "../drivers/sqlite/index.ts";
import { createHostKv } from "../src/engine/kv/kv.ts";
import { createMemoryStorage } from "../src/base/storage/memory.ts";
import type { StorageDriver } from "../src/base/storage/types.ts";

const OPS = Number(process.env.BENCH_KV_OPS ?? 2_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const dataRoot = join(fileURLToPath(new URL(".", import.meta.url)), ".data", `kv-${process.pid}`);
const value = { plan: "pro", seats: 12, tags: ["a", "b", "c"], note: "x".repeat(120) };

type Case = "driver" | "kv" | "kv+ttl";

async function runCase(kind: Case, storage: StorageDriver): Promise<number> {
  const kv = createHostKv({ storage });
  const started = performance.now();
  for (let i = 0; i < OPS; i++) {
    const key = `user:${i % 500}`;
    if (kind === "driver") {
      await storage.set(`raw/user.3A${i % 500}`, JSON.stringify(value));
      JSON.parse((await storage.get(`raw/user.3A${i % 500}`))!);
    } else {
      await kv.put(key, value, kind === "kv+ttl" ? { ttlSeconds: 3600 } : undefined);
      await kv.get(key);
    }
  }
  return OPS / ((performance.now() - started) / 1000);
}

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function main(): Promise<void> {
  console.log(`kv bench: ${OPS} put+get pairs per case, ${ROUNDS} rounds, cases alternate (order reversed every other round)`);
  const rows: string[] = [];
  for (const driver of ["memory", "sqlite"] as const) {
    const results: Record<Case, number[]> = { driver: [], kv: [], "kv+ttl": [] };
    for (let round = 0; round < ROUNDS; round++) {
      const order: Case[] = round % 2 === 0 ? ["driver", "kv", "kv+ttl"] : ["kv+ttl", "kv", "driver"];
      for (const kind of order) {
        const storage = driver === "memory" ? createMemoryStorage() : createSqliteStorage({ path: join(dataRoot, `${driver}-${round}-${kind}.db`) });
        results[kind].push(await runCase(kind, storage));
        await storage.close();
      }
      console.log(`${driver} round ${round + 1}: ${Object.entries(results).map(([k, v]) => `${k} ${Math.round(v.at(-1)!)}/s`).join(", ")}`);
    }
    const base = median(results.driver);
    for (const kind of ["driver", "kv", "kv+ttl"] as const) {
      const rate = median(results[kind]);
      rows.push(`| ${driver} | ${kind} | ${Math.round(rate)} | ${(rate / base).toFixed(2)} |`);
    }
  }
  await rm(dataRoot, { recursive: true, force: true });
  console.log("\n| driver | case | put+get pairs/s (median) | vs driver |\n|---|---|---|---|");
  for (const row of rows) console.log(row);
}

await main();
