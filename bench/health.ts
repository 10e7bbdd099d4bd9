/**
 * `GET /v1/health` requests/s through the whole host behind srvx, against a bare srvx handler
 * that answers the same bytes, in the same run with the same client and concurrency.
 *
 *   npx node bench/health.ts [--connections=32] [--seconds=4] [--rounds=5]
 *
 * Target: host >= 0.85 of bare (multi mode, where the host router answers `/v1/health`). For
 * context: single mode, where the route goes through the agent's route table, and a second bare
 * handler that does the minimum any router does per request (an async handler that parses
 * `request.url` and serializes its JSON answer) instead of returning a constant synchronously.
 *
 * Two ratios are reported, each the median of per-round ratios (the subjects of one round run back
 * to back, so a round's ratio is less exposed to the load of a shared machine than its rates):
 * requests/s, and server CPU time per request (bare / host), which other processes competing for
 * the CPU disturb far less. At saturation the server is CPU-bound, so both estimate the same thing.
 * @module
 */
import { FastResponse } from "srvx";
import { serveNode } from "../adapters/node.ts";
import { createHost } from "../src/index.ts";
import { createMemoryStorage } from "../src/base/storage/memory.ts";
import type { AgentHost } from "../src/host/types.ts";
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

interface Round extends LoadResult {
  /** Server-process CPU time per request answered during the client's measured window. */
  serverCpuUs: number;
}

const connections = option("connections", 32);
const seconds = option("seconds", 4);
const rounds = option("rounds", 5);

const subjects = ["bare srvx", "bare srvx + URL/JSON", "host (multi)", "host (single)"] as const;
type Subject = (typeof subjects)[number];

const hosts: AgentHost[] = [];
const newHost = (mode: "multi" | "single"): AgentHost => {
  const host = createHost({ agents: [{ slug: "bench", project: scriptedProject(), storage: createMemoryStorage() }], mode });
  hosts.push(host);
  return host;
};

// Requests answered by whichever server is under load; every subject pays the same increment.
let served = 0;
// The bare handler answers exactly the bytes and headers of the host's multi-mode health route,
// with the same srvx FastResponse the host uses, so the comparison is of routing and host work only.
const bareBody = JSON.stringify({ ok: true, agents: 1 });
const bareHeaders = { "content-type": "application/json; charset=utf-8" };
const servers: Record<Subject, LoopbackServer> = {
  "bare srvx": await serveLoopback(() => {
    served++;
    return new FastResponse(bareBody, { headers: bareHeaders });
  }),
  "bare srvx + URL/JSON": await serveLoopback(async (request) => {
    served++;
    const { pathname } = new URL(request.url);
    if (pathname !== "/v1/health") return new FastResponse(null, { status: 404 });
    return new FastResponse(JSON.stringify({ ok: true, agents: 1 }), { headers: bareHeaders });
  }),
  "host (multi)": await bindHost(newHost("multi")),
  "host (single)": await bindHost(newHost("single")),
};

console.log(`health: ${connections} keep-alive connections, ${seconds} s per round, ${rounds} rounds; ${machineLine()}`);
// One unmeasured load per server first, so no subject's first round pays for JIT warm-up.
for (const subject of subjects) await runClient(["requests", `${servers[subject].url}/v1/health`, connections, 2]);
const results = await alternate(
  subjects,
  rounds,
  async (subject): Promise<Round> => {
    let window: { served: number; cpu: NodeJS.CpuUsage } | undefined;
    let serverCpuUs = Number.NaN;
    const load = await runClient<LoadResult>(["requests", `${servers[subject].url}/v1/health`, connections, seconds], (mark) => {
      if (mark === "start") window = { served, cpu: process.cpuUsage() };
      else if (mark === "stop" && window) {
        const cpu = process.cpuUsage(window.cpu);
        serverCpuUs = (cpu.user + cpu.system) / (served - window.served);
      }
    });
    return { ...load, serverCpuUs };
  },
  (subject, round, r) =>
    console.log(
      `  round ${round + 1} ${subject}: ${fmt(r.rps)} req/s, server ${fmt(r.serverCpuUs)} µs CPU/request (errors ${r.errors}, client CPU ${fmt(r.clientCpu)})`,
    ),
);

for (const server of Object.values(servers)) await server.close();
for (const host of hosts) await host.close();

for (const subject of subjects) {
  const failed = results[subject].reduce((sum, r) => sum + r.errors, 0);
  if (failed > 0) throw new Error(`health: ${subject} had ${failed} failed requests`);
}
const bare = results["bare srvx"];
const rateRatios = (subject: Subject): number[] => results[subject].map((r, round) => r.rps / bare[round]!.rps);
const cpuRatios = (subject: Subject): number[] => results[subject].map((r, round) => bare[round]!.serverCpuUs / r.serverCpuUs);
const cell = (ratios: number[]): string => `${fmt(median(ratios))} (${ratios.map((value) => value.toFixed(2)).join(" / ")})`;
printTable(
  ["server", "req/s (median)", "per round", "p50 ms", "p99 ms", "server µs CPU/req", "req/s ratio to bare", "CPU ratio to bare", "client CPU"],
  subjects.map((subject) => {
    const rps = results[subject].map((r) => r.rps);
    const mid = middle(results[subject]);
    return [
      subject,
      fmt(median(rps)),
      rps.map((value) => fmt(value)).join(" / "),
      fmt(mid.p50),
      fmt(mid.p99),
      fmt(median(results[subject].map((r) => r.serverCpuUs))),
      subject === "bare srvx" ? "1" : cell(rateRatios(subject)),
      subject === "bare srvx" ? "1" : cell(cpuRatios(subject)),
      fmt(median(results[subject].map((r) => r.clientCpu))),
    ];
  }),
);
const rateRatio = median(rateRatios("host (multi)"));
const cpuRatio = median(cpuRatios("host (multi)"));
const routed = median(results["host (multi)"].map((r, round) => r.rps / results["bare srvx + URL/JSON"][round]!.rps));
console.log(`host (multi) / (bare srvx + URL/JSON): req/s ratio ${routed.toFixed(3)}`);
const met = [rateRatio, cpuRatio].filter((value) => value >= 0.85).length;
console.log(
  `host (multi) / bare: req/s ratio ${rateRatio.toFixed(3)}, CPU-per-request ratio ${cpuRatio.toFixed(3)}; target >= 0.85 ${met === 2 ? "met by both" : met === 1 ? "met by one of the two" : "MISSED by both"}`,
);

// --- internals ---

async function bindHost(host: AgentHost): Promise<LoopbackServer> {
  await host.ready();
  const counted: AgentHost = {
    ...host,
    fetch(request, context) {
      served++;
      return host.fetch(request, context);
    },
  };
  const server = await serveNode(counted, { port: 0, hostname: "127.0.0.1", silent: true });
  return { url: server.url, close: () => server.close(true) };
}

/** The round with the median request rate, whose latencies are reported. */
function middle(values: readonly Round[]): Round {
  const sorted = [...values].sort((a, b) => a.rps - b.rps);
  return sorted[(sorted.length - 1) >> 1]!;
}
