import { spawn } from "node:child_process";
import v8 from "node:v8";
import vm from "node:vm";
import { serveLoopback } from "./_util.ts";
v8.setFlagsFromString("--expose-gc");
const gc = vm.runInNewContext("gc") as () => void;
const mode = process.argv[2];
const server = await serveLoopback(() => {
  if (mode === "plain") return new Response(new ReadableStream({ start(c) { c.enqueue(new Uint8Array(0)); } }));
  if (mode === "pull") {
    const ac = new AbortController();
    async function* gen() { await new Promise((r) => ac.signal.addEventListener("abort", r)); yield 1; }
    const it = gen();
    return new Response(new ReadableStream({ start(c) { c.enqueue(new Uint8Array(0)); }, async pull() { await it.next(); } }));
  }
  return new Response("ok");
});
const N = 2000;
const mem = () => { gc(); gc(); const u = process.memoryUsage(); return u.heapUsed + u.external; };
const before = mem();
const child = spawn(process.execPath, ["/tmp/smem/client.mjs", server.url, String(N), ""], { stdio: ["pipe", "pipe", "inherit"] });
await new Promise<void>((resolve) => child.stdout.once("data", () => resolve()));
await new Promise((r) => setTimeout(r, 300));
console.log(`${mode}: ${((mem() - before) / N / 1024).toFixed(2)} KB per connection`);
child.stdin.write("x\n");
await new Promise((r) => child.on("close", r));
await server.close();
