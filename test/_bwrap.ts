/**
 * Runs `serve` inside bubblewrap so a test can give it a real small tmpfs or a read-only state
 * root without root privileges outside the sandbox. Where bubblewrap (with `--size`) is missing,
 * `bwrapProblem()` says so and the tests report that they did not run.
 */
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BIN, REPO, waitForOutput, type CliProcess } from "./_cli.ts";

/** Why a sandbox with a sized tmpfs cannot be made here, or undefined when it can. */
export function bwrapProblem(): string | undefined {
  const probe = mkdtempSync(join(tmpdir(), "agent-serve-bwrap-"));
  try {
    const result = spawnSync("bwrap", ["--dev-bind", "/", "/", "--unshare-pid", "--size", "65536", "--tmpfs", probe, "true"], {
      encoding: "utf8",
    });
    if (result.error) return `bubblewrap is not available (${result.error.message})`;
    if (result.status !== 0) return `bubblewrap cannot mount a sized tmpfs here: ${result.stderr.trim()}`;
    return undefined;
  } finally {
    rmSync(probe, { recursive: true, force: true });
  }
}

/**
 * Spawns `sh -c script` in a sandbox that sees the whole file system plus `mounts` (bubblewrap
 * arguments such as `--size N --tmpfs DIR` or `--ro-bind DIR DIR`). The script's `$SERVE` runs
 * the CLI's `serve` with the given arguments. Killing the returned child ends the sandbox.
 */
export function spawnSandboxed(mounts: string[], script: string, serveArgs: string[], env: NodeJS.ProcessEnv): CliProcess {
  const serve = [process.execPath, BIN, "serve", ...serveArgs].map(shellQuote).join(" ");
  const child = spawn("bwrap", ["--dev-bind", "/", "/", "--unshare-pid", "--die-with-parent", ...mounts, "sh", "-c", script], {
    cwd: REPO,
    env: { ...env, SERVE: serve },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => (out += chunk));
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (err += chunk));
  const exited = new Promise<CliProcess extends { exited: Promise<infer F> } ? F : never>((resolve) => {
    child.once("exit", (code, signal) => setImmediate(() => resolve({ code, signal, stdout: out, stderr: err })));
  });
  return { child, stdout: () => out, stderr: () => err, exited };
}

/** Waits for the serve banner; resolves with the base URL. */
export async function listening(proc: CliProcess): Promise<string> {
  const match = await waitForOutput(proc, /agent-serve listening on (http:\/\/\S+)/, 30_000);
  return match[1] ?? "";
}

const shellQuote = (value: string): string => `'${value.replace(/'/g, `'\\''`)}'`;
