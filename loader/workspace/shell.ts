/**
 * The `shell` harness tool: `sh -c <command>` in the session workspace, under bubblewrap when
 * `local.sandbox` is on (and not at all when no sandbox works), with a timeout, capped output and
 * optional stdin.
 * @module
 */
import type { HarnessCallContext, HarnessInputs, HarnessOutcome } from "../../src/base/ports/runtime.ts";
import { DEFAULT_SHELL_TIMEOUT_MS, MAX_SHELL_TIMEOUT_MS } from "../../src/engine/harness/tool-specs.ts";
import { runScript } from "./process.ts";
import { probeSandbox, sandboxUnavailable } from "./sandbox.ts";

export interface ShellOptions {
  /** Bytes of stdout and of stderr kept per command. */
  maxOutputBytes: number;
  killGraceMs: number;
  /** The bubblewrap binary. */
  sandboxCommand: string;
}

export async function shellTool(input: HarnessInputs["shell"], context: HarnessCallContext, options: ShellOptions): Promise<HarnessOutcome> {
  const argv = await sandboxArgv(context, options.sandboxCommand);
  if (typeof argv === "string") return { output: argv, isError: true };
  const timeoutMs = Math.min(input.timeoutMs ?? DEFAULT_SHELL_TIMEOUT_MS, MAX_SHELL_TIMEOUT_MS);
  const run = await runScript(input.command, {
    cwd: context.cwd,
    stdin: input.stdin ?? "",
    timeoutMs,
    signal: context.signal,
    maxOutputBytes: options.maxOutputBytes,
    killGraceMs: options.killGraceMs,
    ...(argv ? { argv } : {}),
  });
  const output = { exitCode: run.exitCode, stdout: run.stdout, stderr: run.stderr };
  if (run.killed) {
    const why = context.signal.aborted ? "the command was stopped" : `the command timed out after ${timeoutMs} ms and was killed`;
    return { output: { ...output, error: why }, isError: true };
  }
  return { output, isError: run.exitCode !== 0 };
}

/**
 * The sandbox prefix for a command in `context.cwd`: `undefined` without `local.sandbox`, the
 * refusal message when the sandbox is on but unavailable.
 */
export async function sandboxArgv(context: { cwd: string; sandbox: boolean }, command: string): Promise<string[] | undefined | string> {
  if (!context.sandbox) return undefined;
  const probe = await probeSandbox(command);
  return probe.ok ? probe.argv(context.cwd) : sandboxUnavailable(probe.reason);
}
