/**
 * `agent-serve eval [dir] [--list] [--tag t]... [--filter id]... [--timeout-ms N] [--json]`:
 * runs the project's evals through the eval routes (an ephemeral local server, or `--url`),
 * printing each case as it finishes. Exits 1 unless the run completed with no failed case;
 * Ctrl-C cancels the run.
 * @module
 */
import { ApiError } from "./api-client.ts";
import type { ApiClient } from "./api-client.ts";
import type { EvalArgs } from "./eval-args.ts";
import { EXIT_FAILURE, EXIT_OK } from "./io.ts";
import type { CliIo } from "./io.ts";
import { createProgress } from "./progress.ts";
import type { Progress } from "./progress.ts";
import { stopSignal } from "./stop-signal.ts";
import { createStyle } from "./style.ts";
import type { Style } from "./style.ts";
import { table } from "./table.ts";
import { withTarget } from "./target.ts";

export type { EvalArgs } from "./eval-args.ts";

/** How often the run is polled. */
const POLL_MS = 100;

/** The run snapshot of docs/design/evals.md "Runs", as far as the command reads it. */
interface RunSnapshot {
  runId: string;
  status: "running" | "completed" | "failed" | "cancelled";
  total: number;
  passed: number;
  failed: number;
  cases: Array<{ id: string; status: string; durationMs: number; sessionId: string | null; failures: Array<{ assertion: string; message: string }> }>;
  errors: Array<{ message: string }>;
}

interface Listing {
  evals: Array<{ id: string; tags: string[]; description: string | null }>;
}

export async function evalCommand(args: EvalArgs, io: CliIo): Promise<number> {
  const progress = createProgress(io, { quiet: args.json });
  return withTarget(args, io, progress, async ({ client, agent }) => {
    if (args.list) return list(client, agent.slug, args, io);
    const body = {
      ...(args.filters.length > 0 ? { filterIds: args.filters } : {}),
      ...(args.tags.length > 0 ? { tags: args.tags } : {}),
      ...(args.timeoutMs === undefined ? {} : { timeoutMs: args.timeoutMs }),
    };
    let run: RunSnapshot;
    try {
      run = await client.postJson<RunSnapshot>("/v1/dev/evals/runs", body);
    } catch (error) {
      if (error instanceof ApiError && (error.code === "no_matching_evals" || error.code === "eval_run_in_progress")) {
        io.stderr.write(`agent-serve: ${explain(error, args)}\n`);
        return EXIT_FAILURE;
      }
      throw error;
    }
    const final = await follow(client, run, args, io, progress);
    if (args.json) io.stdout.write(`${JSON.stringify(final)}\n`);
    else printSummary(final, io);
    return final.status === "completed" && final.failed === 0 ? EXIT_OK : EXIT_FAILURE;
  });
}

// --- internals ---

async function list(client: ApiClient, slug: string, args: EvalArgs, io: CliIo): Promise<number> {
  const listing = await client.getJson<Listing>("/v1/dev/evals");
  const selected = listing.evals.filter(
    (entry) =>
      (args.filters.length === 0 || args.filters.some((id) => entry.id === id || entry.id.startsWith(`${id}/`))) &&
      (args.tags.length === 0 || args.tags.some((tag) => entry.tags.includes(tag))),
  );
  if (args.json) {
    io.stdout.write(`${JSON.stringify({ ...listing, evals: selected })}\n`);
    return EXIT_OK;
  }
  if (selected.length === 0) {
    io.stdout.write(`no evals for ${slug}${args.filters.length + args.tags.length > 0 ? " match the filters" : ""}\n`);
    return EXIT_OK;
  }
  const style = createStyle(io.stdout, io.env);
  const rows = selected.map((entry) => [entry.id, entry.tags.map((tag) => style.cyan(`#${tag}`)).join(" "), entry.description ?? ""]);
  io.stdout.write(`${table(rows).join("\n")}\n`);
  return EXIT_OK;
}

/** Polls the run until it ends, printing cases as they finish; Ctrl-C cancels it. */
async function follow(client: ApiClient, first: RunSnapshot, args: EvalArgs, io: CliIo, progress: Progress): Promise<RunSnapshot> {
  const style = createStyle(io.stdout, io.env);
  const path = `/v1/dev/evals/runs/${encodeURIComponent(first.runId)}`;
  const printed = new Set<string>();
  const stop = stopSignal(io.signal);
  let run = first;
  try {
    for (;;) {
      if (!args.json) {
        progress.stop();
        printFinished(run, printed, style, io);
      }
      if (run.status !== "running") return run;
      if (stop.signal.aborted) {
        run = await cancel(client, path);
        continue;
      }
      // A spinner only: without a terminal every poll would print a line.
      if (!args.json && io.stderr.isTTY) progress.start(`${run.passed + run.failed}/${run.total} cases done`);
      await pause(POLL_MS, stop.signal);
      run = await client.getJson<RunSnapshot>(path);
    }
  } finally {
    progress.stop();
    stop.dispose();
  }
}

async function cancel(client: ApiClient, path: string): Promise<RunSnapshot> {
  try {
    return await client.postJson<RunSnapshot>(`${path}/cancel`, {});
  } catch (error) {
    // The run ended on its own in the meantime.
    if (error instanceof ApiError && error.code === "eval_run_not_running") return client.getJson<RunSnapshot>(path);
    throw error;
  }
}

function printFinished(run: RunSnapshot, printed: Set<string>, style: Style, io: CliIo): void {
  for (const item of run.cases) {
    if (printed.has(item.id) || item.status === "pending" || item.status === "running") continue;
    printed.add(item.id);
    const took = style.dim(`${item.durationMs} ms`);
    if (item.status === "passed") {
      io.stdout.write(`${style.green("✔")} ${item.id}  ${took}\n`);
    } else if (item.status === "cancelled") {
      io.stdout.write(`${style.yellow("-")} ${item.id}  ${style.dim("cancelled")}\n`);
    } else {
      io.stdout.write(`${style.red("✖")} ${item.id}  ${took}\n`);
      for (const failure of item.failures) io.stdout.write(`    ${style.red(failure.assertion)}: ${failure.message}\n`);
      if (item.sessionId) io.stdout.write(`    ${style.dim(`session ${item.sessionId} (agent-serve logs ${item.sessionId})`)}\n`);
    }
  }
}

function printSummary(run: RunSnapshot, io: CliIo): void {
  const style = createStyle(io.stdout, io.env);
  for (const error of run.errors) io.stdout.write(`${style.red("error")}: ${error.message}\n`);
  const parts = [style.green(`${run.passed} passed`), run.failed > 0 ? style.red(`${run.failed} failed`) : `${run.failed} failed`];
  const skipped = run.total - run.passed - run.failed;
  if (skipped > 0) parts.push(style.yellow(`${skipped} not run`));
  io.stdout.write(`${parts.join(", ")} of ${run.total} (${run.status}, ${run.runId})\n`);
}

function explain(error: ApiError, args: EvalArgs): string {
  if (error.code === "eval_run_in_progress") return `another eval run is in progress on this agent; wait for it or cancel it`;
  const filters = [...args.filters.map((id) => `--filter ${id}`), ...args.tags.map((tag) => `--tag ${tag}`)];
  return filters.length > 0 ? `no eval matches ${filters.join(" ")} (list them with --list)` : "the agent has no evals (add evals/*.eval.ts)";
}

/** Waits `ms`, or less when `signal` aborts. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
  });
}
