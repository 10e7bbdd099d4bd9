/**
 * The one srvx binding every runtime adapter shares: `host.fetch` on a real port, the port policy
 * of `docs/guide/cli.md` ("serve"), and srvx's request fields copied into the host's
 * `RequestContext`. The caller passes its runtime's srvx `serve`, so this file holds no runtime
 * check.
 * @module
 */
import type { Server, ServerOptions, ServerRequest } from "srvx";
import type { AgentHost, RequestContext } from "../src/host/types.ts";
import { listenWithPolicy } from "./_listen.ts";

export interface ServeOptions {
  /** Listen port; 0 picks any free port. @default 3000 */
  port?: number;
  /** Bind address. Security: the default accepts loopback connections only. @default "127.0.0.1" */
  hostname?: string;
  /** Whether a taken port fails (true) or moves on to the next free one. @default port !== undefined */
  portExplicit?: boolean;
  /** Do not print the moved-port notice (it is still returned). @default false */
  silent?: boolean;
}

export interface RunningServer {
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

/** srvx's `serve` of one runtime (`srvx/node`, `srvx/bun`, `srvx/deno`). */
export type SrvxServe = (options: ServerOptions) => Server;

export async function serveWith(srvxServe: SrvxServe, host: FetchHandler, options: ServeOptions = {}): Promise<RunningServer> {
  const hostname = options.hostname ?? "127.0.0.1";
  const listening = await listenWithPolicy((port) => listen(srvxServe, host, port, hostname), {
    port: options.port ?? 3000,
    explicit: options.portExplicit ?? options.port !== undefined,
  });
  const server = listening.value;
  if (listening.notice && !options.silent) console.warn(`[agent-serve] ${listening.notice}`);
  const url = (server.url ?? `http://${hostname}:${listening.port}/`).replace(/\/$/, "");
  const port = Number(new URL(url).port) || listening.port;
  return { url, port, notice: listening.notice, close: (force) => server.close(force) };
}

/** The host's view of one srvx request: the same fields on every runtime. */
export function requestContext(request: ServerRequest): RequestContext {
  const context: RequestContext = { ip: request.ip };
  if (request.waitUntil) {
    const waitUntil = request.waitUntil.bind(request);
    context.waitUntil = (promise) => void waitUntil(promise);
  }
  return context;
}

// --- internals ---

async function listen(srvxServe: SrvxServe, host: FetchHandler, port: number, hostname: string): Promise<Server> {
  const server = srvxServe({
    // The TCP peer is what loopback-only auth policies judge (docs/guide/http-api.md).
    fetch: (request: ServerRequest) => host.fetch(request, requestContext(request)),
    port,
    hostname,
    silent: true,
    gracefulShutdown: false,
    manual: true,
  });
  await server.serve();
  await server.ready();
  return server;
}
