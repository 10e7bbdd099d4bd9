/**
 * Runs a shell script as its own process group: stdin written once, stdout and stderr capped, a
 * timeout and an abort signal that kill the whole group (SIGTERM, then SIGKILL after a grace
 * period). Agent-tool scripts and the `shell` harness tool both run through it; `argv` puts a
 * sandbox in front of `sh`.
 * @module
 */
import { spawn } from "node:child_process";
import { constants } from "node:os";
import { createError } from "../../src/base/errors.ts";
import type { ScriptResult } from "../../src/base/ports/runtime.ts";

export interface RunOptions {
  cwd: string;
  stdin: string;
  timeoutMs: number;
  signal: AbortSignal;
  maxOutputBytes: number;
  killGraceMs: number;
  /** Runs `[...argv, "sh", "-c", script]` instead of `sh -c script` (the sandbox). */
  argv?: string[];
}

/** After the shell exits, how long a background child may keep the output pipes open. */
const PIPE_DRAIN_MS = 250;

export function runScript(script: string, options: RunOptions): Promise<ScriptResult> {
  if (options.signal.aborted) return Promise.resolve({ exitCode: 128 + constants.signals.SIGTERM, stdout: "", stderr: "", killed: true });
  return new Promise((resolve, reject) => {
    // The input goes to stdin only, never into the command line, so it cannot inject shell syntax.
    // `detached` gives the script its own process group, so a kill reaches its children too.
    const [file, ...args] = [...(options.argv ?? []), "sh", "-c", script];
    const child = spawn(file!, args, { cwd: options.cwd, detached: true, stdio: ["pipe", "pipe", "pipe"] });
    const stdout = collector(options.maxOutputBytes);
    const stderr = collector(options.maxOutputBytes);
    child.stdout.on("data", stdout.push);
    child.stderr.on("data", stderr.push);
    // A script that exits without reading its stdin makes the write fail with EPIPE: not an error.
    child.stdin.on("error", () => {});
    child.stdin.end(options.stdin);

    let killed = false;
    let exitCode: number | undefined;
    let graceTimer: ReturnType<typeof setTimeout> | undefined;
    let drainTimer: ReturnType<typeof setTimeout> | undefined;
    const kill = (): void => {
      if (killed || exitCode !== undefined) return;
      killed = true;
      signalGroup(child.pid, "SIGTERM");
      graceTimer = setTimeout(() => signalGroup(child.pid, "SIGKILL"), options.killGraceMs);
    };
    const timeout = Number.isFinite(options.timeoutMs) && options.timeoutMs > 0 ? setTimeout(kill, options.timeoutMs) : undefined;
    options.signal.addEventListener("abort", kill, { once: true });

    const cleanup = (): void => {
      clearTimeout(timeout);
      clearTimeout(graceTimer);
      clearTimeout(drainTimer);
      options.signal.removeEventListener("abort", kill);
    };
    let settled = false;
    const finish = (): void => {
      if (settled) return;
      settled = true;
      cleanup();
      // Whatever of a killed script's group survived SIGTERM (or ignored it) goes now.
      if (killed) signalGroup(child.pid, "SIGKILL");
      resolve({ exitCode: exitCode ?? -1, stdout: stdout.text(), stderr: stderr.text(), killed });
    };
    child.on("error", (error) => {
      if (settled) return;
      settled = true;
      cleanup();
      reject(createError("runtime", `cannot run the script: ${error.message}`, error));
    });
    child.on("exit", (code, signal) => {
      exitCode = code ?? 128 + (signal ? constants.signals[signal] : 0);
      // A background process the script started may hold the pipes open; do not wait for it forever.
      drainTimer = setTimeout(() => {
        child.stdout.destroy();
        child.stderr.destroy();
        finish();
      }, PIPE_DRAIN_MS);
    });
    child.on("close", finish);
  });
}

function signalGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // The group is already gone.
  }
}

interface Collector {
  push: (chunk: Buffer) => void;
  text: () => string;
}

/** Keeps the first `max` bytes of a stream and notes how much it dropped. */
function collector(max: number): Collector {
  const chunks: Buffer[] = [];
  let kept = 0;
  let dropped = 0;
  return {
    push(chunk) {
      const room = max - kept;
      if (room <= 0) {
        dropped += chunk.length;
        return;
      }
      const part = chunk.length > room ? chunk.subarray(0, room) : chunk;
      chunks.push(part);
      kept += part.length;
      dropped += chunk.length - part.length;
    },
    text() {
      const text = new TextDecoder().decode(Buffer.concat(chunks));
      return dropped > 0 ? `${text}\n[output truncated: ${dropped} more bytes]` : text;
    },
  };
}
