/**
 * `dev` reloads the project when its files change (see `docs/design/dev-reload.md`): the files
 * are loaded afresh into a new host over the same state, requests wait while the hosts change
 * places, and the old host drains its running turns and ends its streams, which clients resume
 * from the index they reached (the playground and `EventSource` do so by themselves). Sessions
 * live in storage and are untouched. A broken file keeps the last good version of its agent
 * serving, with the diagnostic printed.
 * @module
 */
import { watch } from "node:fs";
import { relative, resolve, sep } from "node:path";
import { nextProjectGeneration } from "../loader/module-hooks.ts";
import type { AgentHost, RequestContext } from "../src/types.ts";
import { type CliIo, errorMessage } from "./io.ts";
import { type StartHostOptions, type StartedHost, startHost } from "./start-host.ts";

/** Quiet time after the last change before reloading: editors write a file in several steps. */
const SETTLE_MS = 150;

/** A fetch handler that serves the current host and lets a new one take its place. */
export interface HostSwitch {
  fetch(request: Request, context?: RequestContext): Promise<Response>;
  current(): AgentHost;
  /** Holds new requests, closes the current host (draining its turns), then serves `next`. */
  swap(next: AgentHost): Promise<void>;
}

export function createHostSwitch(initial: AgentHost): HostSwitch {
  let current = initial;
  let gate: Promise<void> | undefined;
  return {
    async fetch(request, context) {
      while (gate) await gate;
      return current.fetch(request, context);
    },
    current: () => current,
    async swap(next) {
      while (gate) await gate;
      let open = (): void => {};
      gate = new Promise<void>((resolve) => (open = resolve));
      try {
        await current.close();
        current = next;
        await next.ready();
      } finally {
        gate = undefined;
        open();
      }
    },
  };
}

export interface DevReloadOptions {
  /** The options the host was started with. */
  start: StartHostOptions;
  started: StartedHost;
  hosts: HostSwitch;
  io: CliIo;
}

/** Watches the served directory and reloads on change; resolves the stop function. */
export function startDevReload(options: DevReloadOptions): () => void {
  const { io, hosts } = options;
  const root = resolve(io.cwd, options.start.dir ?? ".");
  const stateRoot = options.start.stateRoot === undefined ? undefined : resolve(io.cwd, options.start.stateRoot);
  let lastGood = options.started.projects;
  let changed = new Set<string>();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let running: Promise<void> = Promise.resolve();

  const reload = async (files: string[]): Promise<void> => {
    nextProjectGeneration();
    const next = await startHost({ ...options.start, lastGood }, io);
    if (!next) {
      io.stderr.write(`agent-serve: reload failed (${files.join(", ")}); still serving the last good version\n`);
      return;
    }
    await hosts.swap(next.host);
    lastGood = next.projects.map((project) => next.kept.find((kept) => kept.slug === project.slug)?.previous ?? project);
    const kept = next.kept.map((k) => k.slug);
    io.stdout.write(`agent-serve: reloaded after changes to ${files.join(", ")}${kept.length > 0 ? `; ${kept.join(", ")} still on the last good version` : ""}\n`);
  };

  const watcher = watch(root, { recursive: true }, (_event, name) => {
    if (name === null) return;
    const file = String(name);
    if (ignored(file, root, stateRoot)) return;
    changed.add(file);
    clearTimeout(timer);
    timer = setTimeout(() => {
      const files = [...changed].sort();
      changed = new Set();
      running = running.then(() => reload(files)).catch((error: unknown) => {
        io.stderr.write(`agent-serve: reload failed: ${errorMessage(error)}; still serving the last good version\n`);
      });
    }, SETTLE_MS);
  });
  watcher.on("error", (error) => io.stderr.write(`agent-serve: watching ${root} stopped: ${error.message}\n`));
  return () => {
    clearTimeout(timer);
    watcher.close();
  };
}

// --- internals ---

/** State, dependencies and dot folders (`.agent-serve`, `.git`) never trigger a reload. */
function ignored(file: string, root: string, stateRoot: string | undefined): boolean {
  const parts = file.split(sep);
  if (parts.some((part) => part.startsWith(".") || part === "node_modules")) return true;
  if (stateRoot === undefined) return false;
  const inState = relative(stateRoot, resolve(root, file));
  return !inState.startsWith("..") && !inState.startsWith(sep);
}
