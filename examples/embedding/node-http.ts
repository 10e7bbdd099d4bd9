/**
 * A plain `node:http` server that answers some paths itself and hands everything else to the agent
 * host through srvx's `toNodeHandler`, which turns a fetch handler into a `(req, res)` handler;
 * an Express app takes the same handler (`app.use(handler)`). See docs/guide/embedding.md.
 */
import { createServer } from "node:http";
import type { Server } from "node:http";
import { toNodeHandler } from "srvx/node";
import type { NodeHttp1Handler, ServerRequest } from "srvx";
import type { AgentHost } from "agent-serve";

export function createNodeServer(host: AgentHost): Server {
  // SAFETY: toNodeHandler serves HTTP/1 and HTTP/2 alike; this server is HTTP/1.
  const agents = toNodeHandler((request: ServerRequest) => host.fetch(request, { ip: request.ip })) as NodeHttp1Handler;
  return createServer((req, res) => {
    if (req.url === "/healthz") {
      res.end("ok");
      return;
    }
    void agents(req, res);
  });
}
