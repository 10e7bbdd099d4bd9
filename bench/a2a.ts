/**
 * A chat turn over A2A (one blocking `SendMessage` in a new context, answered when the task
 * completes) against the same turn over the session API (`POST /v1/session`, then the NDJSON
 * stream to `session.waiting`), same host, scripted model, same clients, in the same run
 * (docs/guide/a2a.md). The A2A side folds the session's log into the task on the server; the
 * session side's client reads the stream itself.
 *
 *   npx node bench/a2a.ts [--clients=1,8] [--seconds=4] [--rounds=3]
 * @module
 */
import { join } from "node:path";
import { serveNode } from "../adapters/node.ts";
import { createSqliteStorage } from "../drivers/sqlite/index.ts";
import { createHost } from "../src/index.ts";
import { createMemoryStorage } from "../src/base/storage/memory.ts";
import { type TurnsResult, alternate, machineLine, option, printTable, runClient, scriptedProject, tempDir, turnsColumns } from "./_util.ts";

const seconds = option("seconds", 4);
const rounds = option("rounds", 3);
const clientCounts = (process.argv.find((arg) => arg.startsWith("--clients="))?.slice("--clients=".length) ?? "1,8").split(",").map(Number);

const rows: string[][] = [];
for (const driver of ["memory", "sqlite"] as const) {
  const dir = driver === "sqlite" ? await tempDir("a2a-bench") : undefined;
  const storage = dir ? createSqliteStorage({ path: join(dir.path, "state.db") }) : createMemoryStorage();
  const host = createHost({ agents: [{ slug: "bench", project: scriptedProject(), storage }], logger: { info() {}, warn() {}, error() {} } });
  await host.ready();
  const server = await serveNode(host, { port: 0, hostname: "127.0.0.1", silent: true });
  try {
    for (const clients of clientCounts) {
      const subjects = ["session API", "A2A SendMessage"] as const;
      const results = await alternate(subjects, rounds, (subject) =>
        runClient<TurnsResult>([subject === "A2A SendMessage" ? "a2a-turns" : "turns", `${server.url}/bench`, clients, seconds]),
      );
      for (const subject of subjects) rows.push([driver, String(clients), subject, ...turnsColumns(results, subject, "session API", "a2a", `${driver}, c=${clients}`)]);
    }
  } finally {
    await server.close(true);
    await host.close();
    await dir?.cleanup();
  }
}
console.log(machineLine());
console.log(`\nturns over A2A vs the session API: ${seconds} s per round, ${rounds} rounds`);
printTable(["driver", "clients", "subject", "turns/s (median)", "per round", "p50 ms", "ratio to session API"], rows);
