/**
 * One chat turn over each protocol front end, against the same turn over the session API, with
 * the scripted model on the memory store over real loopback HTTP (docs/guide/ag-ui.md,
 * docs/guide/mcp.md). A turn is, per protocol:
 *
 * - session API: `POST /v1/session {"message":"hi"}`, then the live NDJSON stream until
 *   `session.waiting` (a second connection);
 * - AG-UI: `POST /v1/ag-ui` with a new thread and one user message, the SSE body read to its end
 *   (the stream closes after `RUN_FINISHED`);
 * - MCP: `tools/call ask {"message":"hi"}` on the stateless `POST /v1/mcp`, which waits for the
 *   reply and answers once.
 *
 *   npx node bench/protocols.ts [--seconds=3] [--rounds=3]
 *
 * One client, turns back to back after a warm-up; the protocols alternate round by round. The
 * ratio column divides each protocol's turns per second by the session API's of the same round.
 * @module
 */
import { serveNode } from "../adapters/node.ts";
import { createHost } from "../src/index.ts";
import { createMemoryStorage } from "../src/base/storage/memory.ts";
import { alternate, fmt, machineLine, median, option, percentile, printTable, readStreamToWaiting, scriptedProject } from "./_util.ts";

const seconds = option("seconds", 3);
const rounds = option("rounds", 3);
const protocols = ["session API", "AG-UI", "MCP ask"] as const;
type Protocol = (typeof protocols)[number];

const host = createHost({ agents: [{ slug: "bench", project: scriptedProject(), storage: createMemoryStorage() }], logger: { info() {}, warn() {}, error() {} } });
const server = await serveNode(host, { port: 0, hostname: "127.0.0.1", silent: true });
const base = `${server.url}/bench`;
let counter = 0;

const turns: Record<Protocol, () => Promise<void>> = {
  async "session API"() {
    const created = (await post(`${base}/v1/session`, { message: "hi" })) as { sessionId: string };
    await readStreamToWaiting(`${base}/v1/session/${created.sessionId}/stream`);
  },
  async "AG-UI"() {
    const id = `t${++counter}`;
    const response = await fetch(`${base}/v1/ag-ui`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "text/event-stream" },
      body: JSON.stringify({ threadId: id, runId: id, messages: [{ id, role: "user", content: "hi" }] }),
    });
    const text = await response.text();
    if (!text.includes('"RUN_FINISHED"')) throw new Error(`AG-UI run did not finish: ${text.slice(-200)}`);
  },
  async "MCP ask"() {
    const answer = (await post(`${base}/v1/mcp`, { jsonrpc: "2.0", id: ++counter, method: "tools/call", params: { name: "ask", arguments: { message: "hi" } } }, {
      accept: "application/json, text/event-stream",
    })) as { result?: { structuredContent?: { status?: string } } };
    if (answer.result?.structuredContent?.status !== "waiting") throw new Error(`MCP ask did not settle: ${JSON.stringify(answer).slice(0, 200)}`);
  },
};

interface Result {
  turnsPerSecond: number;
  p50: number;
  p95: number;
  turns: number;
}

console.log(`protocols: ${seconds} s per round, ${rounds} rounds; ${machineLine()}`);
for (const protocol of protocols) for (let i = 0; i < 20; i++) await turns[protocol](); // warm-up
const results = await alternate(protocols, rounds, measure, (protocol, round, r) =>
  console.log(`  round ${round + 1}, ${protocol}: ${fmt(r.turnsPerSecond)} turns/s, p50 ${fmt(r.p50)} ms, p95 ${fmt(r.p95)} ms`),
);
const ratios = (protocol: Protocol): number[] => results[protocol].map((r, round) => r.turnsPerSecond / results["session API"][round]!.turnsPerSecond);
printTable(
  ["protocol", "turns/s (median)", "per round", "p50 ms", "p95 ms", "ratio to session API (median)"],
  protocols.map((protocol) => {
    const runs = results[protocol];
    const mid = [...runs].sort((a, b) => a.turnsPerSecond - b.turnsPerSecond)[(runs.length - 1) >> 1]!;
    return [protocol, fmt(median(runs.map((r) => r.turnsPerSecond))), runs.map((r) => fmt(r.turnsPerSecond)).join(" / "), fmt(mid.p50), fmt(mid.p95), fmt(median(ratios(protocol)))];
  }),
);
await host.close();
await server.close(true);

// --- internals ---

async function measure(protocol: Protocol): Promise<Result> {
  const latencies: number[] = [];
  const end = performance.now() + seconds * 1000;
  const start = performance.now();
  while (performance.now() < end) {
    const at = performance.now();
    await turns[protocol]();
    latencies.push(performance.now() - at);
  }
  const elapsed = (performance.now() - start) / 1000;
  latencies.sort((a, b) => a - b);
  return { turnsPerSecond: latencies.length / elapsed, p50: percentile(latencies, 50), p95: percentile(latencies, 95), turns: latencies.length };
}

async function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<unknown> {
  const response = await fetch(url, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) });
  if (!response.ok) throw new Error(`${url} answered ${response.status}: ${await response.text()}`);
  return response.json();
}
