/**
 * `agent-serve serve [dir]` and `agent-serve dev [dir]` (serve with `--dev`); `agent-serve
 * playground [dir]` serves the same way and lists each agent's playground instead.
 * @module
 */
import { createDevCarryOver, createHostSwitch, startDevReload } from "./dev-reload.ts";
import { EXIT_FAILURE, EXIT_OK, errorMessage } from "./io.ts";
import type { CliIo } from "./io.ts";
import { listenHost, startHost } from "./start-host.ts";
import type { StartHostOptions } from "./start-host.ts";
import { waitForStop } from "./stop-signal.ts";
import { plainMessage } from "../src/index.ts";

export interface ServeArgs extends StartHostOptions {
  /** @default 3000, moving to the next free port when taken */
  port?: number;
  /** @default "127.0.0.1" */
  host?: string;
}

export interface ServeBanner {
  /** What the start-up banner lists per agent: its API base URL or its playground. @default "api" */
  show?: "api" | "playground";
}

export async function serveCommand(args: ServeArgs, io: CliIo, banner: ServeBanner = {}): Promise<number> {
  // Under dev the project reloads when its files change: the server serves whichever host is
  // current, and the stores and open streams carry over from one host to the next.
  const carryOver = args.dev ? createDevCarryOver() : undefined;
  const start: StartHostOptions = { ...args, listenHost: args.host, ...(carryOver ? { carryOver } : {}) };
  const started = await startHost(start, io);
  if (!started) {
    await carryOver?.end();
    return EXIT_FAILURE;
  }
  const { host, projects, mode } = started;
  const hosts = carryOver ? createHostSwitch(host, carryOver) : undefined;
  let server;
  try {
    // Recover turns a crash interrupted before anyone can observe them.
    await host.ready();
    server = await listenHost(hosts ?? host, { port: args.port, hostname: args.host, silent: true }, io);
  } catch (error) {
    io.stderr.write(`agent-serve: ${plainMessage(errorMessage(error))}\n`);
    await (hosts ?? host).close();
    return EXIT_FAILURE;
  }
  // One write, so a reader that sees the first line sees the whole banner.
  const lines = server.notice ? [`agent-serve: ${server.notice}`] : [];
  lines.push(`agent-serve listening on ${server.url}${args.dev ? " (dev)" : ""}`);
  const models = host.describeModels();
  const width = Math.max(...[...projects, ...started.skipped].map(({ slug }) => slug.length));
  for (const { slug } of projects) {
    const base = mode === "single" ? server.url : `${server.url}/${slug}`;
    const url = banner.show === "playground" ? `${base}/playground` : base;
    const model = models.find((m) => m.slug === slug)?.model;
    lines.push(`  ${slug.padEnd(width)}  ${url}${model ? `  (model ${model})` : ""}`);
    if (banner.show !== "playground" && args.playground !== false) lines.push(`  ${"".padEnd(width)}  playground  ${base}/playground`);
  }
  for (const { slug, errors } of started.skipped) lines.push(`  ${slug.padEnd(width)}  not served: ${errors} error${errors === 1 ? "" : "s"}`);
  if (args.docs === true) lines.push(`  docs  ${server.url}/docs`);
  for (const { slug, notice } of models) if (notice) lines.push(`note: ${slug}: ${notice}`);
  if (hosts) lines.push("watching for changes: the project reloads when its files change");
  io.stdout.write(`${lines.join("\n")}\n`);
  const stopWatching = hosts ? startDevReload({ start, started, hosts, io }) : undefined;
  await waitForStop(io.signal);
  stopWatching?.();
  io.stdout.write("agent-serve: shutting down\n");
  await (hosts ?? host).close();
  await server.close(true);
  return EXIT_OK;
}
