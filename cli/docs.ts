/**
 * `agent-serve docs`: the `/docs` documentation site alone, on a host with no agents.
 * @module
 */
import { createProjectHost } from "../adapters/_project.ts";
import { nodeRuntime } from "../adapters/node.ts";
import { createCliLogger } from "./cli-logger.ts";
import { listenHost } from "./start-host.ts";
import { EXIT_FAILURE, EXIT_OK, errorMessage } from "./io.ts";
import type { CliIo } from "./io.ts";
import { waitForStop } from "./stop-signal.ts";

export interface DocsArgs {
  /** @default 3000, moving to the next free port when taken */
  port?: number;
  /** @default "127.0.0.1" */
  host?: string;
}

export async function docsCommand(args: DocsArgs, io: CliIo): Promise<number> {
  // The composition root `serve` uses (adapters/_project.ts), over no projects: no agents, no
  // index routes, no clock and nothing to recover, so only /docs (and /v1/health) answer.
  const host = await createProjectHost(
    { mode: "multi", projects: [], diagnostics: [], errors: 0 },
    {
      docs: true,
      playground: false,
      controlPlane: false,
      schedules: false,
      recover: false,
      cwd: io.cwd,
      env: io.env,
      logger: createCliLogger(io, { infoTo: "stdout", format: "text" }),
    },
    io.runtime ?? nodeRuntime,
  );
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
