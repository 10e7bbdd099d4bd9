/**
 * A chat turn of an agent with hard budgets on every scope (each model call reserved and settled
 * in the ledger's compare-and-set commits, docs/design/budgets.md) against the same turn of an
 * agent without budgets, both served by the CLI over sqlite, scripted model, same clients, in the
 * same run. The cost measured is the ledger's: its reservation and settlement per model call and
 * the send check per create. The limits are far above what the run spends, so nothing is refused.
 *
 *   npx node bench/budgets.ts [--clients=1,8] [--seconds=4] [--rounds=3]
 * @module
 */
import { join } from "node:path";
import { agentProjectDir, type TurnsResult, alternate, machineLine, option, printTable, runClient, serveCli, stopCli, tempDir, turnsColumns } from "./_util.ts";

const seconds = option("seconds", 4);
const rounds = option("rounds", 3);
const clientCounts = (process.argv.find((arg) => arg.startsWith("--clients="))?.slice("--clients=".length) ?? "1,8").split(",").map(Number);

const dir = await tempDir("budgets-bench");
const project = (name: string, agent: string): Promise<string> => agentProjectDir(dir.path, name, agent);
const far = "{ tokens: 1e12, costUsd: 1e9, toolCalls: 1e9, seconds: 1e9 }";
const plainDir = await project("plain", "{}");
const budgetedDir = await project("budgeted", `{ budgets: { turn: ${far}, session: ${far}, principalPerDay: ${far}, agentPerDay: ${far} } }`);
const plain = await serveCli(plainDir, join(dir.path, "state-plain"));
const budgeted = await serveCli(budgetedDir, join(dir.path, "state-budgeted"));

const rows: string[][] = [];
try {
  for (const clients of clientCounts) {
    const subjects = ["no budgets", "budgets on every scope"] as const;
    const results = await alternate(subjects, rounds, (subject) => runClient<TurnsResult>(["turns", subject === "no budgets" ? plain.url : budgeted.url, clients, seconds]));
    for (const subject of subjects) rows.push([String(clients), subject, ...turnsColumns(results, subject, "no budgets", "budgets", `c=${clients}`)]);
  }
} finally {
  await stopCli(plain);
  await stopCli(budgeted);
  await dir.cleanup();
}
console.log(machineLine());
console.log(`\nturns with budgets on every scope vs none (sqlite, scripted model): ${seconds} s per round, ${rounds} rounds`);
printTable(["clients", "subject", "turns/s (median)", "per round", "p50 ms", "ratio to none"], rows);
