/**
 * A chat turn on the cloud runtime (the host dispatches to an `agent-serve runner` on loopback,
 * which runs the loop and streams the events back) against the same turn run locally by the host,
 * both served by the CLI over sqlite, scripted model, same clients, in the same run
 * (docs/design/cloud-runtime.md). The cost measured is the runner hop: the signed request, the
 * runner's workspace preparation and the NDJSON relay into the host's writer.
 *
 *   npx node bench/cloud.ts [--clients=1,8] [--seconds=4] [--rounds=3]
 * @module
 */
import { spawn } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { agentProjectDir, type TurnsResult, alternate, machineLine, option, printTable, runClient, serveCli, stopCli, tempDir, turnsColumns } from "./_util.ts";

const seconds = option("seconds", 4);
const rounds = option("rounds", 3);
const clientCounts = (process.argv.find((arg) => arg.startsWith("--clients="))?.slice("--clients=".length) ?? "1,8").split(",").map(Number);
const SECRET = "bench-runner-secret-0123456789";
const CLI = fileURLToPath(new URL("../bin/agent-serve.mjs", import.meta.url));

const dir = await tempDir("cloud-bench");
const project = (name: string, agent: string): Promise<string> => agentProjectDir(dir.path, name, agent);
const localDir = await project("local", "{}");
const cloudDir = await project("cloud", "{ runtime: \"cloud\", cloud: {} }");

const runner = spawn(process.execPath, [CLI, "runner", cloudDir, "--port", "0", "--mode", "single", "--workdir", join(dir.path, "work")], {
  stdio: ["ignore", "pipe", "pipe"],
  env: { ...process.env, AGENT_SERVE_RUNNER_SECRET: SECRET },
});
const runnerUrl = await new Promise<string>((resolve, reject) => {
  let output = "";
  runner.stdout!.setEncoding("utf8").on("data", (chunk: string) => {
    output += chunk;
    const match = /runner listening on (http:\/\/\S+)/.exec(output);
    if (match) resolve(match[1]!);
  });
  runner.once("exit", (code) => reject(new Error(`bench: the runner exited with ${code}:\n${output}`)));
});
// The runner logs two lines per turn; nobody reads them here.
runner.stdout!.resume();
process.env.AGENT_SERVE_RUNNER_SECRET = SECRET;
const local = await serveCli(localDir, join(dir.path, "state-local"));
const cloud = await serveCli(cloudDir, join(dir.path, "state-cloud"), 60_000, ["--runner", runnerUrl]);

const rows: string[][] = [];
try {
  for (const clients of clientCounts) {
    const subjects = ["local turn", "runner turn"] as const;
    const results = await alternate(subjects, rounds, (subject) =>
      runClient<TurnsResult>(["turns", subject === "local turn" ? local.url : cloud.url, clients, seconds]),
    );
    for (const subject of subjects) rows.push([String(clients), subject, ...turnsColumns(results, subject, "local turn", "cloud", `c=${clients}`)]);
  }
} finally {
  await stopCli(local);
  await stopCli(cloud);
  runner.kill("SIGTERM");
  await dir.cleanup();
}
console.log(machineLine());
console.log(`\nrunner turns vs local turns (sqlite, scripted model): ${seconds} s per round, ${rounds} rounds`);
printTable(["clients", "subject", "turns/s (median)", "per round", "p50 ms", "ratio to local"], rows);
