/**
 * The load client of bench/peers/run.ts, run as its own process so it never shares a server's
 * event loop. Drives one kind of turn in a closed loop with `clients` concurrent workers and
 * prints one JSON object on stdout; `mark:start` / `mark:stop` on stderr frame the measured window
 * (the runner samples the server's CPU over the same window).
 *
 *   node bench/peers/client.ts <kind> <baseUrl> <clients> <seconds> <warmupSeconds>
 *
 * Kinds, each one turn to completion over HTTP with a new conversation:
 * - `agent-serve`: `POST /v1/session {"message":"hi"}`, then the session's NDJSON stream read up to
 *   `session.waiting` (as bench/_load.ts `turns`).
 * - `mastra-generate`: `POST /api/agents/plain/generate` (no memory).
 * - `mastra-memory`: `POST /api/agents/remembering/generate` with a new memory thread.
 * - `langgraph`: `POST /threads`, then `POST /threads/:id/runs/wait`.
 * Every kind checks that the answer holds the model's reply, so a failed turn is never counted.
 * @module
 */
import { randomUUID } from "node:crypto";
import http from "node:http";
import { readStreamToWaiting } from "../_util.ts";

type Kind = "agent-serve" | "mastra-generate" | "mastra-memory" | "langgraph";
const kinds: readonly Kind[] = ["agent-serve", "mastra-generate", "mastra-memory", "langgraph"];

const [kindArg, base, clientsArg, secondsArg, warmupArg] = process.argv.slice(2);
if (!kinds.includes(kindArg as Kind) || !base) {
  process.stderr.write(`usage: client.ts ${kinds.join("|")} <baseUrl> <clients> <seconds> <warmupSeconds>\n`);
  process.exit(2);
}
const kind = kindArg as Kind;
const clients = Number(clientsArg ?? 1);
const seconds = Number(secondsArg ?? 5);
const warmup = Number(warmupArg ?? 1);
const agent = new http.Agent({ keepAlive: true, maxSockets: clients });
const userMessage = [{ role: "user", content: "hi" }];

const turn: Record<Kind, () => Promise<void>> = {
  "agent-serve": async () => {
    const { sessionId } = JSON.parse(await post("/v1/session", { message: "hi" })) as { sessionId: string };
    await readStreamToWaiting(`${base}/v1/session/${sessionId}/stream`);
  },
  "mastra-generate": async () => {
    expectReply(await post("/api/agents/plain/generate", { messages: userMessage }));
  },
  "mastra-memory": async () => {
    const memory = { thread: randomUUID(), resource: "bench" };
    expectReply(await post("/api/agents/remembering/generate", { messages: userMessage, memory }));
  },
  langgraph: async () => {
    const { thread_id: threadId } = JSON.parse(await post("/threads", {})) as { thread_id: string };
    expectReply(await post(`/threads/${threadId}/runs/wait`, { assistant_id: "agent", input: { messages: userMessage } }));
  },
};

const latencies: number[] = [];
let completed = 0;
let errors = 0;
let firstError: string | undefined;
let measuring = false;
let stopping = false;
const worker = async () => {
  while (!stopping) {
    const startedAt = performance.now();
    try {
      await turn[kind]();
      if (measuring && !stopping) {
        completed++;
        latencies.push(performance.now() - startedAt);
      }
    } catch (error) {
      errors++;
      firstError ??= error instanceof Error ? error.message : String(error);
      await sleep(10);
    }
  }
};
const workers = Array.from({ length: clients }, worker);
await sleep(warmup * 1000);
measuring = true;
process.stderr.write("mark:start\n");
const start = performance.now();
await sleep(seconds * 1000);
stopping = true;
process.stderr.write("mark:stop\n");
const elapsed = (performance.now() - start) / 1000;
await Promise.all(workers);
agent.destroy();
latencies.sort((a, b) => a - b);
const at = (p: number) => (latencies.length === 0 ? Number.NaN : latencies[Math.min(latencies.length - 1, Math.ceil((p / 100) * latencies.length) - 1)]!);
process.stdout.write(`${JSON.stringify({ turns: completed, errors, firstError, seconds: elapsed, turnsPerSecond: completed / elapsed, p50: at(50), p99: at(99) })}\n`);
process.exit(0);

function expectReply(body: string): void {
  if (!body.includes("hello")) throw new Error(`answer without the model's reply: ${body.slice(0, 200)}`);
}

function post(path: string, body: unknown): Promise<string> {
  const text = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const request = http.request(
      `${base}${path}`,
      { method: "POST", agent, headers: { "content-type": "application/json", "content-length": Buffer.byteLength(text) } },
      (response) => {
        let answer = "";
        response.setEncoding("utf8");
        response.on("data", (chunk: string) => (answer += chunk));
        response.on("end", () => {
          if (response.statusCode === 200) resolve(answer);
          else reject(new Error(`POST ${path} answered ${response.statusCode}: ${answer.slice(0, 200)}`));
        });
        response.on("error", reject);
      },
    );
    request.on("error", reject);
    request.end(text);
  });
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
