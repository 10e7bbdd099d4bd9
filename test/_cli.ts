/**
 * Spawning the real `bin/agent-serve.mjs` for CLI and crash tests.
 */
import { spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterEach } from "vitest";

export const BIN = fileURLToPath(new URL("../bin/agent-serve.mjs", import.meta.url));
export const REPO = fileURLToPath(new URL("..", import.meta.url));

/** The parent's environment without model credentials, with an empty config dir (no stored login). */
export function cliEnv(configDir: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, AGENT_SERVE_CONFIG_DIR: configDir, ...extra };
  for (const name of ["OPENAI_API_KEY", "ANTHROPIC_API_KEY", "XAI_API_KEY", "AGENT_SERVE_OPENAI_COMPATIBLE_API_KEY", "PORT", "HOST"]) {
    delete env[name];
  }
  return env;
}

export interface Finished {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs the CLI to completion. */
export function runCli(args: string[], env: NodeJS.ProcessEnv, timeoutMs = 20_000): Promise<Finished> {
  return finished(spawnCli(args, env), timeoutMs);
}

export interface CliProcess {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  exited: Promise<Finished>;
}

/** Spawns the CLI; `node` is the interpreter (another one tests the old-Node re-exec). */
export function spawnCli(args: string[], env: NodeJS.ProcessEnv, node = process.execPath): CliProcess {
  const child = spawn(node, [BIN, ...args], { cwd: REPO, env, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  let err = "";
  child.stdout?.setEncoding("utf8").on("data", (chunk: string) => (out += chunk));
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => (err += chunk));
  const exited = new Promise<Finished>((resolve) => {
    child.once("exit", (code, signal) => {
      // Let the pipes drain before reporting what was printed.
      setImmediate(() => resolve({ code, signal, stdout: out, stderr: err }));
    });
  });
  return { child, stdout: () => out, stderr: () => err, exited };
}

/** Waits for exit; kills the process and fails if it takes longer than `timeoutMs`. */
export async function finished(proc: CliProcess, timeoutMs = 20_000): Promise<Finished> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      proc.child.kill("SIGKILL");
      reject(new Error(`CLI did not exit within ${timeoutMs} ms\nstdout: ${proc.stdout()}\nstderr: ${proc.stderr()}`));
    }, timeoutMs);
  });
  return Promise.race([proc.exited, timeout]).finally(() => clearTimeout(timer));
}

/** Waits until stdout matches `pattern` (returns the match) or the process exits or times out. */
export async function waitForOutput(proc: CliProcess, pattern: RegExp, timeoutMs = 20_000): Promise<RegExpMatchArray> {
  const deadline = Date.now() + timeoutMs;
  let exited = false;
  void proc.exited.then(() => (exited = true));
  for (;;) {
    const match = pattern.exec(proc.stdout());
    if (match) return match;
    if (exited || Date.now() > deadline) {
      throw new Error(`no ${pattern} in output${exited ? " (process exited)" : ""}\nstdout: ${proc.stdout()}\nstderr: ${proc.stderr()}`);
    }
    await new Promise<void>((resolve) => {
      const onData = (): void => {
        clearTimeout(timer);
        proc.child.stdout?.off("data", onData);
        resolve();
      };
      const timer = setTimeout(onData, 50);
      proc.child.stdout?.on("data", onData);
    });
  }
}

/** Starts `serve` and resolves with its base URL once it listens. */
export async function startServe(
  args: string[],
  env: NodeJS.ProcessEnv,
  node = process.execPath,
): Promise<CliProcess & { url: string }> {
  const proc = spawnCli(["serve", ...args], env, node);
  try {
    // A cold start from the sources takes seconds, and far more on a loaded two-core machine.
    const match = await waitForOutput(proc, /agent-serve listening on (http:\/\/\S+)/, 45_000);
    return { ...proc, url: match[1] ?? "" };
  } catch (error) {
    // Not handed to the test, so nothing else would stop it.
    proc.child.kill("SIGKILL");
    throw error;
  }
}

/** A list to push spawned processes into; each test's leftovers are killed after it. */
export function killAfterEach(): CliProcess[] {
  const running: CliProcess[] = [];
  afterEach(async () => {
    for (const proc of running.splice(0)) {
      if (proc.child.exitCode === null && proc.child.signalCode === null) proc.child.kill("SIGKILL");
      await proc.exited;
    }
  });
  return running;
}
