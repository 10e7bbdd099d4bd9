/**
 * Direct tool calls per second (`POST /v1/tools/:toolName`) for a trivial tool, without and with
 * `sessionId`, against `GET /v1/health` through the same host, client and concurrency in the same
 * run: the difference is the cost of body parsing, validation, the call envelope and, with a
 * session, serializing with turns and recording two events on the session's stream.
 *
 *   npx node bench/tools.ts [--clients=16] [--seconds=4] [--rounds=3]
 * @module
 */
import * as v from "valibot";
import { serveNode } from "../adapters/node.ts";
import { createHost } from "../src/index.ts";
import { createMemoryStorage } from "../src/base/storage/memory.ts";
import { defineTool } from "../src/engine/tools/define.ts";
import { alternate, fmt, machineLine, median, option, printTable, runClient, scriptedProject } from "./_util.ts";

const clients = option("clients", 16);
const seconds = option("seconds", 4);
const rounds = option("rounds", 3);

const echo = defineTool({
  description: "Echo a word",
  inputSchema: v.object({ word: v.pipe(v.string(), v.maxLength(64)) }),
  execute: ({ word }) => ({ word }),
});
const host = createHost({
  agents: [{ slug: "bench", project: { ...scriptedProject(), tools: { echo } }, storage: createMemoryStorage() }],
  logger: { info() {}, warn() {}, error() {} },
});
const server = await serveNode(host, { port: 0, silent: true });

// One session per client: session-bound calls on one session serialize (409 while one runs).
const sessionIds: string[] = [];
for (let i = 0; i < clients; i++) {
  sessionIds.push((await host.send("/reply ready", { slug: "bench", auth: { authenticator: "localDevStrict", principalId: "local", principalType: "local" } })).sessionId);
}
await new Promise((resolve) => setTimeout(resolve, 500));

const subjects = ["GET /v1/health", "tool call", "tool call + sessionId"] as const;
type Result = { requests: number; errors: number; firstError?: string; rps: number };
const targets: Record<(typeof subjects)[number], [string, unknown[] | null]> = {
  "GET /v1/health": [`${server.url}/bench/v1/health`, null],
  "tool call": [`${server.url}/bench/v1/tools/echo`, [{ input: { word: "hi" } }]],
  "tool call + sessionId": [`${server.url}/bench/v1/tools/echo`, sessionIds.map((sessionId) => ({ input: { word: "hi" }, sessionId }))],
};
const results = await alternate(subjects, rounds, (subject) => {
  const [url, bodies] = targets[subject];
  return runClient<Result>(["calls", url, clients, seconds, 1, JSON.stringify(bodies)]);
});

console.log(machineLine());
const base = results["GET /v1/health"];
printTable(
  ["subject", "req/s (median)", "per round", "errors", "ratio to health"],
  subjects.map((subject) => [
    subject,
    fmt(median(results[subject].map((r) => r.rps)), 0),
    results[subject].map((r) => fmt(r.rps, 0)).join(" / "),
    String(results[subject].reduce((sum, r) => sum + r.errors, 0)) + (results[subject].find((r) => r.firstError)?.firstError ? ` (${results[subject].find((r) => r.firstError)!.firstError})` : ""),
    fmt(median(results[subject].map((r, round) => r.rps / base[round]!.rps))),
  ]),
);
await host.close();
await server.close(true);
