/**
 * What one open stream costs in server memory, by kind (docs/design/listing.md "Streams"): heap +
 * external memory after two full GCs with 2,000 connections held open by the client process
 * (`bench/_streams-client.ts hold`), minus the same before, per connection. Subjects: a keep-alive
 * connection idle after `GET /v1/health`; an open response that never sends anything, served by
 * srvx alone (what any stream costs before the host adds to it); a live NDJSON follower; a live
 * Server-Sent Events follower. Memory store, one session.
 *
 *   npx node bench/stream-memory.ts [--connections=2000]
 * @module
 */
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import v8 from "node:v8";
import vm from "node:vm";
import { serveNode } from "../adapters/node.ts";
import { createMemoryStorage } from "../src/base/storage/memory.ts";
import { createHost } from "../src/index.ts";
import { fmt, machineLine, option, printTable, scriptedProject, serveLoopback } from "./_util.ts";

v8.setFlagsFromString("--expose-gc");
const gc = vm.runInNewContext("gc") as () => void;
const CLIENT = fileURLToPath(new URL("./_streams-client.ts", import.meta.url));
const connections = option("connections", 2_000);

console.log(`stream-memory: ${connections} connections per subject; ${machineLine()}`);
const host = createHost({ agents: [{ slug: "bench", project: scriptedProject(), storage: createMemoryStorage() }], logger: { info() {}, warn() {}, error() {} } });
await host.ready();
const server = await serveNode(host, { port: 0, hostname: "127.0.0.1", silent: true });
const bare = await serveLoopback(() => new Response(new ReadableStream({ start: (controller) => controller.enqueue(new Uint8Array(0)) })));
try {
  const base = `${server.url}/bench`;
  const { sessionId } = (await (await fetch(`${base}/v1/session`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ message: "hi" }) })).json()) as { sessionId: string };
  await new Promise((resolve) => setTimeout(resolve, 300));
  const live = `${base}/v1/session/${sessionId}/stream?startIndex=1000000`;
  const subjects: Array<[string, string, string]> = [
    ["keep-alive connection, idle after GET /v1/health", `${base}/v1/health`, ""],
    ["open response that sends nothing (srvx alone)", bare.url, ""],
    ["live NDJSON follower", live, ""],
    ["live SSE follower", live, "text/event-stream"],
  ];
  const rows: string[][] = [];
  for (const [name, url, accept] of subjects) {
    const before = memory();
    const child = spawn(process.execPath, [CLIENT, "hold", url, String(connections), ...(accept ? [accept] : [])], { stdio: ["pipe", "pipe", "pipe"] });
    await new Promise<void>((resolve, reject) => {
      child.stderr.setEncoding("utf8").on("data", (chunk: string) => chunk.includes("mark:open") && resolve());
      child.on("close", (code) => reject(new Error(`client exited with ${code}`)));
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    const per = (memory() - before) / connections;
    child.stdin.write("done\n");
    await new Promise((resolve) => child.once("close", resolve));
    await new Promise((resolve) => setTimeout(resolve, 500));
    console.log(`  ${name}: ${fmt(per / 1024)} KB`);
    rows.push([name, fmt(per / 1024)]);
  }
  printTable(["per connection (heap + external)", "KB"], rows);
} finally {
  await server.close(true);
  await bare.close();
  await host.close();
}

function memory(): number {
  gc();
  gc();
  const usage = process.memoryUsage();
  return usage.heapUsed + usage.external;
}
