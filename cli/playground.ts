/**
 * `agent-serve playground [dir]`: the playground for a project (a local server, its banner
 * listing each agent's playground), or with `--url` the playground alone for a running server,
 * its API calls forwarded there (see `adapters/_playground-proxy.ts`).
 * @module
 */
import { listenHost } from "./start-host.ts";
import { readPlaygroundSite } from "../adapters/_sites.ts";
import { EXIT_FAILURE, EXIT_OK, UsageError, errorMessage } from "./io.ts";
import type { CliIo } from "./io.ts";
import { createPlaygroundProxy } from "../adapters/_playground-proxy.ts";
import { createProgress } from "./progress.ts";
import { serveCommand } from "./serve.ts";
import type { ServeArgs } from "./serve.ts";
import { waitForStop } from "./stop-signal.ts";
import { openTarget } from "./target.ts";

export interface PlaygroundArgs extends ServeArgs {
  /**
   * A running server's agent URL; the playground is then served alone, proxying to it, and the
   * local-server options do not apply. `bearerToken` is added by the proxy to every request.
   */
  url?: string;
}

export async function playgroundCommand(args: PlaygroundArgs, io: CliIo): Promise<number> {
  if (args.url === undefined) {
    if (args.bearerToken !== undefined) throw new UsageError("--bearer-token applies with --url only (serve --bearer-token protects a local server)");
    return serveCommand({ ...args, playground: true, docs: false }, io, { show: "playground" });
  }
  // Fails early, with the reason, when the URL is not an agent (or lacks the slug in multi mode).
  const target = await openTarget({ url: args.url, bearerToken: args.bearerToken }, io, createProgress(io, { quiet: true }));
  const proxy = createPlaygroundProxy({ site: await readPlaygroundSite(), upstream: target.client.baseUrl, bearerToken: args.bearerToken });
  let server;
  try {
    server = await listenHost(proxy, { port: args.port, hostname: args.host ?? "127.0.0.1", silent: true }, io);
  } catch (error) {
    io.stderr.write(`agent-serve: ${errorMessage(error)}\n`);
    return EXIT_FAILURE;
  }
  const lines = server.notice ? [`agent-serve: ${server.notice}`] : [];
  lines.push(`agent-serve playground at ${server.url}/playground (for ${target.agent.name} at ${target.client.baseUrl})`);
  io.stdout.write(`${lines.join("\n")}\n`);
  await waitForStop(io.signal);
  await server.close(true);
  return EXIT_OK;
}
