/**
 * The host on Node, Bun and Deno: `GET /hello/v1/health` throughput through each runtime's adapter
 * (the fixture `test/fixtures/adapter-server.ts`) against a bare srvx handler on the same runtime
 * (`bench/_bare-server.ts`), and the CLI's start-up to the first healthy answer per runtime.
 *
 *   npx node bench/runtimes.ts [--rounds=3] [--seconds=3] [--connections=16]
 * @module
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { alternate, fmt, machineLine, median, option, printTable, runClient, tempDir } from "./_util.ts";

type Runtime = "node" | "bun" | "deno";
const RUNTIMES: Runtime[] = ["node", "bun", "deno"];
const REPO = fileURLToPath(new URL("..", import.meta.url));
const BIN_DIR = join(REPO, "node_modules", ".bin");
const rounds = option("rounds", 3);
const seconds = option("seconds", 3);
const connections = option("connections", 16);

function command(runtime: Runtime, script: string, args: string[] = []): [string, string[]] {
  if (runtime === "node") return [process.execPath, [script, ...args]];
  if (runtime === "bun") return [join(BIN_DIR, "bun"), [script, ...args]];
  return [join(BIN_DIR, "deno"), ["run", "-A", script, ...args]];
}

async function start(runtime: Runtime, script: string, args: string[], pattern: RegExp): Promise<{ child: ChildProcess; url: string; ms: number }> {
  const begin = performance.now();
  const [file, argv] = command(runtime, script, args);
  const child = spawn(file, argv, { cwd: REPO, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, OPENAI_API_KEY: "", ANTHROPIC_API_KEY: "" } });
  let output = "";
  const url = await new Promise<string>((resolve, reject) => {
    const onData = (chunk: Buffer): void => {
      output += chunk.toString();
      const match = pattern.exec(output);
      if (match) resolve(match[1]!);
    };
    child.stdout!.on("data", onData);
    child.stderr!.on("data", onData);
    child.once("exit", (code) => reject(new Error(`bench: ${runtime} exited with ${code}:\n${output}`)));
  });
  return { child, url, ms: performance.now() - begin };
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGKILL");
  await exited;
}

interface LoadResult {
  rps: number;
  errors: number;
  p50: number;
}

console.log(`# runtimes: ${machineLine()}; ${rounds} rounds × ${seconds} s, ${connections} connections`);
const throughput: string[][] = [];
for (const runtime of RUNTIMES) {
  const host = await start(runtime, join(REPO, "test", "fixtures", "adapter-server.ts"), [], /listening (http:\/\/\S+)/);
  const bare = await start(runtime, join(REPO, "bench", "_bare-server.ts"), [], /listening (http:\/\/\S+)/);
  const urls = { host: `${host.url}/hello/v1/health`, bare: `${bare.url}/` };
  const results = await alternate(["host", "bare"] as const, rounds, (subject) =>
    runClient<LoadResult>(["requests", urls[subject], connections, seconds, 1]),
    (subject, round, result) => console.log(`${runtime} round ${round + 1} ${subject}: ${fmt(result.rps)} req/s, p50 ${fmt(result.p50)} ms, ${result.errors} errors`),
  );
  await stop(host.child);
  await stop(bare.child);
  const hostRps = median(results.host.map((r) => r.rps));
  const bareRps = median(results.bare.map((r) => r.rps));
  // The ratio of each round (host and bare measured back to back) resists the shared machine's drift.
  const ratios = results.host.map((r, i) => r.rps / results.bare[i]!.rps);
  throughput.push([runtime, fmt(hostRps), fmt(bareRps), fmt(median(ratios), 2)]);
}

// Start-up of the unchanged CLI: spawn to "listening", a one-agent project without imports.
const work = await tempDir("runtimes");
await mkdir(join(work.path, "echo", "bot"), { recursive: true });
await writeFile(join(work.path, "echo", "package.json"), JSON.stringify({ name: "echo", private: true, type: "module" }));
await writeFile(join(work.path, "echo", "bot", "agent.ts"), `export default { model: "scripted" };\n`);
await writeFile(join(work.path, "echo", "bot", "instructions.md"), "Be brief.\n");
const startup: Record<Runtime, number[]> = { node: [], bun: [], deno: [] };
await alternate(RUNTIMES, rounds, async (runtime) => {
  const cli = await start(runtime, join(REPO, "bin", "agent-serve.mjs"), ["serve", join(work.path, "echo"), "--port", "0", "--state-root", join(work.path, "state"), "--no-docs"], /listening on (http:\/\/\S+)/);
  startup[runtime].push(cli.ms);
  console.log(`${runtime} CLI start-up: ${fmt(cli.ms)} ms`);
  await stop(cli.child);
});
await work.cleanup();

console.log("\n### GET /hello/v1/health, host through the runtime's adapter vs a bare srvx handler (req/s, median)\n");
printTable(["runtime", "host", "bare srvx", "host / bare (median of per-round ratios)"], throughput);
console.log("\n### CLI start-up to listening (ms, median)\n");
const nodeStart = median(startup.node);
printTable(["runtime", "start-up", "vs Node"], RUNTIMES.map((runtime) => [runtime, fmt(median(startup[runtime])), fmt(median(startup[runtime]) / nodeStart, 2)]));
