/**
 * `dev` reloads the project when its files change (see `docs/design/dev-reload.md`): the files
 * are loaded afresh into a new host over the same stores, the reload waits until no turn is
 * running on the old host (which serves meanwhile), requests wait while the hosts change places,
 * and open streams carry on: they follow the stores, which outlive every host of the run. A
 * broken file keeps the last good version of its agent serving, with the diagnostic printed.
 * @module
 */
import { watch } from "node:fs";
import { relative, resolve, sep } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { type StoragePool, createStoragePool } from "../adapters/_storage.ts";
import { nextProjectGeneration } from "../adapters/_package.ts";
import { plainMessage } from "../src/index.ts";
import type { AgentHost, ClosingSignal, RequestContext } from "../src/index.ts";
import { type CliIo, errorMessage } from "./io.ts";
import { type StartHostOptions, type StartedHost, startHost } from "./start-host.ts";

/** Quiet time after the last change before reloading: editors write a file in several steps. */
const SETTLE_MS = 150;
/** Longest a reload waits for running turns; then the old host's drain limit applies. */
const TURNS_WAIT_MS = 60_000;
const TURNS_POLL_MS = 25;

/** What every host of one `dev` run shares: each mount's store, and the end of live streams. */
export interface DevCarryOver {
  storages: StoragePool;
  closing: ClosingSignal;
  /** Ends the live streams, then closes the stores. */
  end(): Promise<void>;
}

export function createDevCarryOver(): DevCarryOver {
  const storages = createStoragePool();
  const listeners = new Set<() => void>();
  return {
    storages,
    closing: {
      subscribe(listener) {
        listeners.add(listener);
        return () => listeners.delete(listener);
      },
    },
    async end() {
      for (const listener of listeners) listener();
      listeners.clear();
      await storages.close();
    },
  };
}

/** A fetch handler that serves the current host and lets a new one take its place. */
export interface HostSwitch {
  fetch(request: Request, context?: RequestContext): Promise<Response>;
  current(): AgentHost;
  /**
   * Waits (serving as before) until the current host runs no turn, then holds new requests,
   * closes it and serves `next`. `onWait` hears how many turns the reload waits for.
   */
  swap(next: AgentHost, onWait?: (turns: number) => void): Promise<void>;
  /** Closes the current host, ends the live streams and closes the stores. */
  close(): Promise<void>;
}

export function createHostSwitch(initial: AgentHost, carryOver: DevCarryOver): HostSwitch {
  let current = initial;
  let gate: Promise<void> | undefined;
  let closing = false;
  return {
    async fetch(request, context) {
      while (gate) await gate;
      return current.fetch(request, context);
    },
    current: () => current,
    async swap(next, onWait) {
      while (gate) await gate;
      // A running turn finishes on the project it started with: the swap waits for it, and the
      // old host keeps serving meanwhile (an approval it parks can still be decided).
      const deadline = Date.now() + TURNS_WAIT_MS;
      if (current.runningTurns() > 0) onWait?.(current.runningTurns());
      while (current.runningTurns() > 0 && Date.now() < deadline && !closing) await sleep(TURNS_POLL_MS);
      // Shut down while waiting: the new host never served, and the stores are closing under it.
      if (closing) return next.close();
      let open = (): void => {};
      gate = new Promise<void>((resolve) => (open = resolve));
      try {
        // The host's stores are lent (closing it leaves them open) and its streams end with the
        // carry-over, so a stream it opened follows what the next host appends.
        await current.close();
        current = next;
        await next.ready();
      } finally {
        gate = undefined;
        open();
      }
    },
    async close() {
      closing = true;
      while (gate) await gate;
      await current.close();
      await carryOver.end();
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
    await hosts.swap(next.host, (turns) => io.stdout.write(`agent-serve: reload waits for ${turns} running turn${turns === 1 ? "" : "s"} to finish\n`));
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
        io.stderr.write(`agent-serve: reload failed: ${plainMessage(errorMessage(error))}; still serving the last good version\n`);
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
