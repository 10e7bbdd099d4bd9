/**
 * A c=1 durable turn on a sqlite store that already holds many sessions, as a host that has
 * served for a while does: CPU per turn (this process's, writer thread included), its system
 * share, and the turn's p50, with the store's file past SQLite's page cache. In process
 * (`host.request`, no HTTP), a turn being the create and its stream read to `session.waiting`.
 *
 *   npx node bench/history-turns.ts [--history=20000] [--turns=1500] [--rounds=4] [--baseline=<checkout>]
 *
 * Each code builds its own history once (`--history` sessions created through its own host, 32 at
 * a time, each turn finished), so the keys are laid out the way that code lays them out; every
 * round then measures on a fresh copy of that file, after 200 warm-up turns. With `--baseline`,
 * that tree's host and driver run in the same process, rounds alternating (the order reversed
 * every other round). WAL, `synchronous=FULL`, lone commits inline: the served default.
 * @module
 */
import { copyFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { createSqliteStorage } from "../drivers/sqlite/index.ts";
import { createHost } from "../src/index.ts";
import { fmt, machineLine, median, option, percentile, printTable, readResponseToWaiting, scriptedProject, tempDir } from "./_util.ts";

const history = option("history", 20_000);
const turns = option("turns", 1500);
const rounds = option("rounds", 4);
const baselineDir = process.argv.find((arg) => arg.startsWith("--baseline="))?.slice("--baseline=".length);

interface Code {
  name: string;
  createHost: typeof createHost;
  createSqliteStorage: typeof createSqliteStorage;
}
const codes: Code[] = [{ name: "this code", createHost, createSqliteStorage }];
if (baselineDir) {
  const root = resolve(baselineDir);
  const load = async <T>(path: string) => (await import(pathToFileURL(join(root, path)).href)) as T;
  codes.push({
    name: "baseline",
    createHost: (await load<{ createHost: typeof createHost }>("src/index.ts")).createHost,
    createSqliteStorage: (await load<{ createSqliteStorage: typeof createSqliteStorage }>("drivers/sqlite/index.ts")).createSqliteStorage,
  });
}

type Host = ReturnType<typeof createHost>;

async function turn(host: Host): Promise<void> {
  const created = await host.request("/bench/v1/session", { method: "POST", headers: { "content-type": "application/json" }, body: '{"message":"hi"}' });
  const { sessionId } = (await created.json()) as { sessionId: string };
  await readResponseToWaiting(await host.request(`/bench/v1/session/${sessionId}/stream`));
}

async function withHost<T>(code: Code, path: string, work: (host: Host) => Promise<T>): Promise<T> {
  const host = code.createHost({ agents: [{ slug: "bench", project: scriptedProject(), storage: code.createSqliteStorage({ path }) }] });
  await host.ready();
  try {
    return await work(host);
  } finally {
    await host.close();
  }
}

const dir = await tempDir("history-turns");
const files = new Map<Code, string>();
console.log(`history-turns: ${history} sessions of history, ${turns} turns per round, ${rounds} rounds; ${machineLine()}`);
for (const code of codes) {
  const path = join(dir.path, `${files.size}-history.db`);
  const started = performance.now();
  await withHost(code, path, async (host) => {
    let next = 0;
    await Promise.all(Array.from({ length: 32 }, async () => {
      while (next++ < history) await turn(host);
    }));
  });
  files.set(code, path);
  console.log(`  ${code.name}: ${history} sessions written in ${fmt((performance.now() - started) / 1000)} s`);
}

interface Round {
  cpu: number;
  system: number;
  p50: number;
}
const results = new Map<Code, Round[]>(codes.map((code) => [code, []]));
for (let r = 0; r < rounds; r++) {
  for (const code of r % 2 === 0 ? codes : [...codes].reverse()) {
    const path = join(dir.path, `round.db`);
    await copyFile(files.get(code)!, path);
    const round = await withHost(code, path, async (host) => {
      for (let i = 0; i < 200; i++) await turn(host);
      const latencies: number[] = [];
      const cpu = process.cpuUsage();
      for (let i = 0; i < turns; i++) {
        const start = performance.now();
        await turn(host);
        latencies.push(performance.now() - start);
      }
      const used = process.cpuUsage(cpu);
      return { cpu: (used.user + used.system) / 1000 / turns, system: used.system / 1000 / turns, p50: percentile(latencies.sort((a, b) => a - b), 50) };
    });
    results.get(code)!.push(round);
    console.log(`  round ${r + 1}, ${code.name}: CPU ${fmt(round.cpu)} ms/turn (system ${fmt(round.system)}), p50 ${fmt(round.p50)} ms`);
  }
}
await dir.cleanup();

const base = baselineDir ? results.get(codes[1]!)! : undefined;
printTable(
  ["code", "CPU ms/turn (median)", "per round", "system ms/turn", "p50 ms", ...(base ? ["CPU vs baseline (median of rounds)"] : [])],
  codes.map((code) => {
    const rs = results.get(code)!;
    const ratio = base ? [fmt(median(rs.map((round, i) => round.cpu / base[i]!.cpu)))] : [];
    return [code.name, fmt(median(rs.map((round) => round.cpu))), rs.map((round) => fmt(round.cpu)).join(" / "), fmt(median(rs.map((round) => round.system))), fmt(median(rs.map((round) => round.p50))), ...ratio];
  }),
);
