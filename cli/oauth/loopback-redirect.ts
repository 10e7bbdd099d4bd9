/**
 * The loopback redirect listener of a native OAuth client (RFC 8252 §7.3): an HTTP server on
 * 127.0.0.1 that takes one `GET /callback` from the browser, answers it with a page saying the
 * terminal has it now, and hands the query over. Any other request gets 404 and changes nothing.
 * @module
 */
import { createServer } from "node:http";
import { CommandError } from "../io.ts";

export interface RedirectListener {
  /** `http://127.0.0.1:<port>/callback`. */
  redirectUri: string;
  /** The callback's query; rejects when the wait times out or is aborted. */
  redirect: Promise<URLSearchParams>;
  close(): Promise<void>;
}

const PAGE = `<!doctype html><meta charset="utf-8"><title>agent-serve</title><p>Done: you can close this tab and go back to the terminal.</p>\n`;

export async function listenForRedirect(options: { port?: number; timeoutMs: number; signal?: AbortSignal }): Promise<RedirectListener> {
  let settle: { resolve: (query: URLSearchParams) => void; reject: (error: Error) => void } | undefined;
  const redirect = new Promise<URLSearchParams>((resolve, reject) => (settle = { resolve, reject }));
  redirect.catch(() => {});
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? "/", "http://127.0.0.1");
    if (request.method !== "GET" || url.pathname !== "/callback" || !settle) {
      response.writeHead(404, { "content-type": "text/plain" }).end("not found\n");
      return;
    }
    response.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(PAGE);
    settle.resolve(url.searchParams);
    settle = undefined;
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", (error: NodeJS.ErrnoException) =>
      reject(new CommandError(error.code === "EADDRINUSE" ? `port ${options.port} is taken: pass another --redirect-port (the one your registered client allows)` : error.message)),
    );
    server.listen(options.port ?? 0, "127.0.0.1", resolve);
  });
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  const fail = (message: string): void => {
    settle?.reject(new CommandError(message));
    settle = undefined;
  };
  const timer = setTimeout(() => fail(`no answer from the browser within ${Math.round(options.timeoutMs / 1000)} s: run the command again (--timeout-ms waits longer)`), options.timeoutMs);
  const onAbort = (): void => fail("stopped before the browser came back");
  options.signal?.addEventListener("abort", onAbort, { once: true });
  return {
    redirectUri: `http://127.0.0.1:${port}/callback`,
    redirect,
    async close() {
      clearTimeout(timer);
      options.signal?.removeEventListener("abort", onAbort);
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
