/**
 * `GET /v1/health` requests/s through the whole host behind srvx, against a bare srvx handler
 * that answers the same bytes, in the same run with the same client and concurrency.
 *
 *   npx node bench/health.ts [--connections=32] [--seconds=4] [--rounds=5]
 *
 * Target: host >= 0.85 of bare (multi mode, where the host router answers `/v1/health`). Single
 * mode, where the route goes through the agent's itty router, is measured for context.
 *
 * The ratio is the median of per-round ratios: the subjects of one round run back to back, so a
 * round's ratio is far less exposed to the load of a shared machine than its absolute rates.
 * @module
 */
import { serveNode } from "../adapters/node.ts";
import { createHost } from "../src/index.ts";
import { createMemoryStorage } from "../src/storage/memory.ts";
import type { AgentHost } from "../src/types.ts";
import {
  type LoopbackServer,
  alternate,
  fmt,
  machineLine,
  median,
  option,
  printTable,
  runClient,
  scriptedProject,
  serveLoopback,
} from "./_util.ts";

interface LoadResult {
  requests: number;
  errors: number;
  rps: number;
  p50: number;
  p99: number;
  clientCpu: number;
}

const connections = option("connections", 32);
const seconds = option("seconds", 4);
const rounds = option("rounds", 5);

const subjects = ["bare srvx", "host (multi)", "host (single)"] as const;
type Subject = (typeof subjects)[number];

const hosts: AgentHost[] = [];
const newHost = (mode: "multi" | "single"): AgentHost => {
  const host = createHost({ agents: [{ slug: "bench", project: scriptedProject(), storage: createMemoryStorage() }], mode });
  hosts.push(host);
  return host;
};

// The bare handler answers exactly the bytes and headers of the host's multi-mode health route.
const bareBody = JSON.stringify({ ok: true, agents: 1 });
const bareHeaders = { "content-type": "application/json; charset=utf-8" };
const servers: Record<Subject, LoopbackServer> = {
  "bare srvx": await serveLoopback(() => new Response(bareBody, { headers: bareHeaders })),
  "host (multi)": await bindHost(newHost("multi")),
  "host (single)": await bindHost(newHost("single")),
};

console.log(`health: ${connections} keep-alive connections, ${seconds} s per round, ${rounds} rounds; ${machineLine()}`);
const results = await alternate(
  subjects,
  rounds,
  (subject) => runClient<LoadResult>(["requests", `${servers[subject].url}/v1/health`, connections, seconds]),
  (subject, round, r) =>
    console.log(`  round ${round + 1} ${subject}: ${fmt(r.rps)} req/s (errors ${r.errors}, client CPU ${fmt(r.clientCpu)})`),
);

for (const server of Object.values(servers)) await server.close();
for (const host of hosts) await host.close();

for (const subject of subjects) {
  const failed = results[subject].reduce((sum, r) => sum + r.errors, 0);
  if (failed > 0) throw new Error(`health: ${subject} had ${failed} failed requests`);
}
const ratioToBare = (subject: Subject): number[] =>
  results[subject].map((r, round) => r.rps / results["bare srvx"][round]!.rps);
printTable(
  ["server", "req/s (median)", "per round", "p50 ms", "p99 ms", "ratio to bare (median of rounds)", "client CPU"],
  subjects.map((subject) => {
    const rps = results[subject].map((r) => r.rps);
    const mid = middle(results[subject]);
    return [
      subject,
      fmt(median(rps)),
      rps.map((value) => fmt(value)).join(" / "),
      fmt(mid.p50),
      fmt(mid.p99),
      subject === "bare srvx" ? "1" : `${fmt(median(ratioToBare(subject)))} (${ratioToBare(subject).map((value) => value.toFixed(2)).join(" / ")})`,
      fmt(median(results[subject].map((r) => r.clientCpu))),
    ];
  }),
);
const ratio = median(ratioToBare("host (multi)"));
console.log(`host (multi) / bare = ${ratio.toFixed(3)}: target >= 0.85 ${ratio >= 0.85 ? "met" : "MISSED"}`);

// --- internals ---

async function bindHost(host: AgentHost): Promise<LoopbackServer> {
  await host.ready();
  const server = await serveNode(host, { port: 0, hostname: "127.0.0.1", silent: true });
  return { url: server.url, close: () => server.close(true) };
}

/** The round with the median request rate, whose latencies are reported. */
function middle(values: readonly LoadResult[]): LoadResult {
  const sorted = [...values].sort((a, b) => a.rps - b.rps);
  return sorted[(sorted.length - 1) >> 1]!;
}
