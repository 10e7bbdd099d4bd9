/**
 * `agent-serve docs`: the `/docs` documentation site alone, on a host with no agents.
 * @module
 */
import { listenHost } from "./start-host.ts";
import { renderDocsSite } from "../loader/docs-site.ts";
import { createHost } from "../src/host/host.ts";
import { EXIT_FAILURE, EXIT_OK } from "./io.ts";
import type { CliIo } from "./io.ts";
import { waitForStop } from "./stop-signal.ts";
import { errorMessage } from "../src/base/errors.ts";

export interface DocsArgs {
  /** @default 3000, moving to the next free port when taken */
  port?: number;
  /** @default "127.0.0.1" */
  host?: string;
}

export async function docsCommand(args: DocsArgs, io: CliIo): Promise<number> {
  // No agents, no index routes and no clock: only /docs (and the host's /v1/health) answer.
  const host = createHost({ agents: [], playground: false, controlPlane: false, docs: await renderDocsSite() });
  let server;
  try {
    server = await listenHost(host, { port: args.port, hostname: args.host ?? "127.0.0.1", silent: true }, io);
  } catch (error) {
    io.stderr.write(`agent-serve: ${errorMessage(error)}\n`);
    await host.close();
    return EXIT_FAILURE;
  }
  const lines = server.notice ? [`agent-serve: ${server.notice}`] : [];
  lines.push(`agent-serve docs at ${server.url}/docs`);
  io.stdout.write(`${lines.join("\n")}\n`);
  await waitForStop(io.signal);
  await host.close();
  await server.close(true);
  return EXIT_OK;
}
