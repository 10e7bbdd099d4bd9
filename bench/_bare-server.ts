/**
 * The baseline of `bench/runtimes.ts`: a bare srvx handler answering the same bytes as the host's
 * `GET /v1/health`, on whichever runtime runs this file. Prints `listening <url> <runtime>`.
 */
import { serve } from "srvx";

const runtime = "Bun" in globalThis ? "bun" : "Deno" in globalThis ? "deno" : "node";
const body = JSON.stringify({ ok: true, status: "ok" });
const server = serve({
  fetch: () => new Response(body, { headers: { "content-type": "application/json" } }),
  port: 0,
  hostname: "127.0.0.1",
  silent: true,
  gracefulShutdown: false,
});
await server.ready();
console.log(`listening ${server.url!.replace(/\/$/, "")} ${runtime}`);
