/**
 * Node adapter: binds `host.fetch` to a real port with srvx. It only moves bytes; every
 * behaviour lives in the host.
 * @example
 * import { createHost, serveNode } from "agent-serve/node";
 * const server = await serveNode(createHost({ agents }), { port: 0 });
 * console.log(server.url);
 * @module
 */
import { serve } from "srvx";
import type { Server, ServerRequest } from "srvx";
import type { AgentHost } from "../src/types.ts";
import { listenWithPolicy } from "./_node/listen.ts";

export { createHost } from "../src/host.ts";
export { readPlaygroundSite } from "../loader/playground-site.ts";

export interface ServeNodeOptions {
  /** Listen port; 0 picks any free port. @default 3000 */
  port?: number;
  /** Bind address. Security: the default accepts loopback connections only. @default "127.0.0.1" */
  hostname?: string;
  /** Whether a taken port fails (true) or moves on to the next free one. @default port !== undefined */
  portExplicit?: boolean;
  /** Do not print the moved-port notice (it is still returned). @default false */
  silent?: boolean;
}

export interface NodeServer {
  /** Base URL without a trailing slash, e.g. `http://127.0.0.1:3000`. */
  url: string;
  port: number;
  /** Set when the default port was taken and another one is used. */
  notice?: string;
  /** Stops listening; `force` also ends open connections such as live streams. */
  close(force?: boolean): Promise<void>;
}

/** Anything with the host's `fetch`: an {@link AgentHost}, or a handler built over one. */
export type FetchHandler = Pick<AgentHost, "fetch">;

export async function serveNode(host: FetchHandler, options: ServeNodeOptions = {}): Promise<NodeServer> {
  const hostname = options.hostname ?? "127.0.0.1";
  const listening = await listenWithPolicy((port) => listen(host, port, hostname), {
    port: options.port ?? 3000,
    explicit: options.portExplicit ?? options.port !== undefined,
  });
  const server = listening.value;
  if (listening.notice && !options.silent) console.warn(`[agent-serve] ${listening.notice}`);
  const port = listeningPort(server) ?? listening.port;
  return {
    url: (server.url ?? `http://${hostname}:${port}/`).replace(/\/$/, ""),
    port,
    notice: listening.notice,
    close: (force) => server.close(force),
  };
}

// --- internals ---

async function listen(host: FetchHandler, port: number, hostname: string): Promise<Server> {
  const server = serve({
    // The TCP peer is what loopback-only auth policies judge (docs/guide/http-api.md "Auth").
    fetch: (request: ServerRequest) => host.fetch(request, { ip: request.ip }),
    port,
    hostname,
    silent: true,
    gracefulShutdown: false,
    manual: true,
  });
  await server.serve();
  return server;
}

function listeningPort(server: Server): number | undefined {
  const address = server.node?.server?.address();
  return typeof address === "object" && address !== null ? address.port : undefined;
}
