/**
 * The harness search tools: `glob` (file names) and `grep` (file contents, in a worker thread
 * with a time limit), confined to the session workspace.
 * @module
 */
import { stat } from "node:fs/promises";
import { Worker } from "node:worker_threads";
import type { HarnessInputs, HarnessOutcome } from "../../src/base/ports/runtime.ts";
import type { GrepJob, GrepResult } from "./grep-worker.ts";
import { resolveInWorkspace } from "./paths.ts";
import { globProblem, globToRegExp, walkFiles } from "./walk.ts";
import { errorMessage } from "../../src/base/errors.ts";

/** Paths `glob` returns at most. */
const MAX_GLOB_RESULTS = 1000;
/** Entries a walk visits at most. */
const MAX_WALK_ENTRIES = 100_000;

export async function globTool(cwd: string, input: HarnessInputs["glob"]): Promise<HarnessOutcome> {
  const problem = globProblem(input.pattern);
  if (problem) return fail(`glob: ${problem}`);
  const regex = globToRegExp(input.pattern.replace(/^\.\//, ""));
  const found: string[] = [];
  const { complete } = await walkFiles(cwd, "", { maxEntries: MAX_WALK_ENTRIES }, (relative) => {
    if (regex.test(relative)) found.push(relative);
    return found.length < MAX_GLOB_RESULTS;
  });
  if (found.length === 0) return ok(complete ? "no files match" : "no files match (the search stopped early: too many files)");
  return ok(found.join("\n") + (complete ? "" : `\n[stopped after ${found.length} paths; narrow the pattern]`));
}

/** `timeoutMs`: how long one search may run before its worker is terminated. */
export async function grepTool(cwd: string, input: HarnessInputs["grep"], signal: AbortSignal, timeoutMs: number): Promise<HarnessOutcome> {
  try {
    new RegExp(input.pattern);
  } catch (error) {
    return fail(`grep: invalid regular expression: ${errorMessage(error)}`);
  }
  const problem = input.glob === undefined ? undefined : globProblem(input.glob);
  if (problem) return fail(`grep: glob: ${problem}`);
  const target = await resolveInWorkspace(cwd, input.path ?? ".", "read");
  const info = await stat(target.path);
  const job: GrepJob = {
    target: target.path,
    prefix: target.relative,
    isFile: info.isFile(),
    pattern: input.pattern,
    glob: input.glob === undefined ? null : globToRegExp(input.glob.replace(/^\.\//, "")).source,
    maxMatches: 500,
    maxEntries: MAX_WALK_ENTRIES,
    maxFileBytes: 2 * 1024 * 1024,
    maxLineChars: 300,
  };
  const result = await inWorker(job, signal, timeoutMs);
  if (typeof result === "string") return fail(`grep: ${result}`);
  if (result.lines.length === 0) return ok(`no matches (${result.filesSearched} files searched)`);
  return ok(result.lines.join("\n") + (result.truncated ? `\n[stopped after ${result.lines.length} matches; narrow the search]` : ""));
}

// --- internals ---

// Compiled to `dist/` the worker is `grep-worker.js` next to this file.
const WORKER_URL = new URL(import.meta.url.endsWith(".ts") ? "./grep-worker.ts" : "./grep-worker.js", import.meta.url);

function inWorker(job: GrepJob, signal: AbortSignal, timeoutMs: number): Promise<GrepResult | string> {
  return new Promise((resolve) => {
    const worker = new Worker(WORKER_URL, { workerData: job });
    let done = false;
    const finish = (value: GrepResult | string): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      signal.removeEventListener("abort", onAbort);
      void worker.terminate();
      resolve(value);
    };
    const timer = setTimeout(() => finish(`the search took longer than ${timeoutMs} ms and was stopped; narrow the path or simplify the pattern`), timeoutMs);
    const onAbort = (): void => finish("stopped");
    signal.addEventListener("abort", onAbort, { once: true });
    worker.once("message", (message: GrepResult) => finish(message));
    worker.once("error", (error) => finish(error.message));
    worker.once("exit", (code) => finish(`the search ended unexpectedly (exit code ${code})`));
  });
}

const ok = (output: string): HarnessOutcome => ({ output, isError: false });
const fail = (output: string): HarnessOutcome => ({ output, isError: true });
