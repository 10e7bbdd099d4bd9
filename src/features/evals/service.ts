/**
 * One agent's eval runner (docs/design/evals.md "Runs"): one run at a time, cases `maxConcurrency`
 * at once, each bounded by its time limit (docs/guide/http-api.md "Limits": the case's own, then
 * the run's `timeoutMs` from the CLI, then the config's, then 180 s). Snapshots are stored as cases
 * start their sessions and finish, so runs survive restarts; a run a restart interrupted is marked
 * failed on start.
 * @module
 */
import { HTTPError, conflict, errorMessage, notFound } from "../../base/errors.ts";
import type { AuthContext } from "../../base/auth.ts";
import { randomId } from "../../base/ids.ts";
import type { EventLogView } from "../../base/events/log-view.ts";
import type { SendOptions, SendResult } from "../../base/definitions/sessions.ts";
import type { StorageDriver } from "../../base/storage/types.ts";
import type { HostLogger } from "../../base/logging.ts";
import { type EvalCase, type EvalCatalog, type EvalFilter, type EvalListing, buildCatalog, selectCases } from "./catalog.ts";
import { runCase } from "./run-case.ts";
import { EvalRunStore, newestFirst } from "./run-store.ts";
import type { EvalCaseResult, EvalConfig, EvalDefinition, EvalRunSnapshot } from "../../base/definitions/evals.ts";

/** Concurrency when the config sets none. */
export const DEFAULT_MAX_CONCURRENCY = 4;
/** Case time limit when nothing else sets one (docs/guide/http-api.md "Limits"). */
export const DEFAULT_CASE_TIMEOUT_MS = 180_000;
/** The in-memory cap of docs/design/evals.md "Runs"; runs here are always stored, so it is only reported. */
export const MAX_PLAYGROUND_RUNS = 50;

/** The channel eval sessions run on. */
const EVAL_CHANNEL = "http";

export interface EvalServiceDeps {
  storage: StorageDriver;
  log: EventLogView;
  sessions: { send(channel: string, message: string, options: SendOptions): Promise<SendResult> };
  /** Interrupts a session's running turn. */
  stop(sessionId: string): Promise<unknown>;
  evals?: Record<string, EvalDefinition>;
  config?: EvalConfig;
  /** The declared `effect` of the agent's tools, for `t.notCalledTool({effect})`. */
  toolEffect?(toolName: string): string | undefined;
  now: () => number;
  logger: HostLogger;
}

export interface StartRunOptions extends EvalFilter {
  /** The CLI's `--timeout-ms`: below a case's own limit, above the config's. */
  timeoutMs?: number;
}

/** `config` of `GET /v1/dev/evals`. */
export interface EvalServiceConfig {
  maxConcurrency: number;
  timeoutMs: number;
  maxPlaygroundRuns: number;
  durableRuns: true;
}

interface ActiveRun {
  snapshot: EvalRunSnapshot;
  abort: AbortController;
  /** Set by cancel and close: how the run ends once its cases have stopped. */
  ending?: { status: "cancelled" | "failed"; error?: string };
  done: Promise<void>;
}

export class EvalService {
  readonly #deps: EvalServiceDeps;
  readonly #store: EvalRunStore;
  readonly #catalog: EvalCatalog;
  #active: ActiveRun | undefined;
  #closing = false;

  constructor(deps: EvalServiceDeps) {
    this.#deps = deps;
    this.#store = new EvalRunStore(deps.storage, deps.logger);
    this.#catalog = buildCatalog(deps.evals ?? {});
    for (const diagnostic of this.#catalog.diagnostics) deps.logger.warn(`[evals] ${diagnostic.message}; the eval is left out`);
  }

  /** Every runnable eval case (iterations not expanded). */
  list(): EvalListing[] {
    return this.#catalog.evals.map((entry) => ({ ...entry, tags: [...entry.tags] }));
  }

  config(): EvalServiceConfig {
    return {
      maxConcurrency: this.#deps.config?.maxConcurrency ?? DEFAULT_MAX_CONCURRENCY,
      timeoutMs: this.#deps.config?.timeoutMs ?? DEFAULT_CASE_TIMEOUT_MS,
      maxPlaygroundRuns: MAX_PLAYGROUND_RUNS,
      durableRuns: true,
    };
  }

  /** Starts a run of the matching cases as `auth`; resolves with its first snapshot. */
  async start(options: StartRunOptions, auth: AuthContext): Promise<EvalRunSnapshot> {
    if (this.#closing) throw new HTTPError({ status: 503, code: "shutting_down", message: "the host is shutting down" });
    if (this.#active) {
      throw conflict("eval_run_in_progress", `eval run ${this.#active.snapshot.runId} is in progress; wait for it or cancel it`);
    }
    const selected = selectCases(this.#catalog.cases, options);
    if (selected.length === 0) {
      throw notFound("no_matching_evals", this.#catalog.cases.length === 0 ? "the agent has no evals" : "no eval matches the filters");
    }
    const snapshot: EvalRunSnapshot = {
      runId: `eval_${randomId(20)}`,
      status: "running",
      startedAt: new Date(this.#deps.now()).toISOString(),
      // Holds its place in the key order of docs/design/evals.md "Runs"; JSON leaves it out until it is set.
      finishedAt: undefined,
      total: selected.length,
      passed: 0,
      failed: 0,
      cases: selected.map((item) => ({ id: item.id, status: "pending", durationMs: 0, sessionId: null, failures: [] })),
      errors: [],
    };
    // Taken before the first await, so two concurrent starts cannot both run.
    const active: ActiveRun = { snapshot, abort: new AbortController(), done: Promise.resolve() };
    this.#active = active;
    try {
      await this.#store.save(snapshot);
    } catch (error) {
      this.#active = undefined;
      throw error;
    }
    active.done = this.#execute(active, selected, options, auth);
    return copy(snapshot);
  }

  /** The run's snapshot; 404 `eval_run_not_found` when there is none. */
  async get(runId: string): Promise<EvalRunSnapshot> {
    if (this.#active?.snapshot.runId === runId) return copy(this.#active.snapshot);
    const stored = await this.#store.get(runId);
    if (!stored) throw runNotFound();
    return stored;
  }

  /** Every run, newest first, and the one in progress. */
  async runs(): Promise<{ runs: EvalRunSnapshot[]; activeRunId?: string }> {
    const active = this.#active;
    const stored = await this.#store.list();
    const runs = stored.map((run) => (run.runId === active?.snapshot.runId ? copy(active.snapshot) : run));
    if (active && !runs.some((run) => run.runId === active.snapshot.runId)) runs.push(copy(active.snapshot));
    return { runs: runs.sort(newestFirst), ...(active ? { activeRunId: active.snapshot.runId } : {}) };
  }

  /** Cancels the running run; resolves with its final snapshot once its cases have stopped. */
  async cancel(runId: string): Promise<EvalRunSnapshot> {
    const active = this.#active;
    if (active?.snapshot.runId !== runId) {
      const stored = await this.#store.get(runId);
      if (!stored) throw runNotFound();
      throw conflict("eval_run_not_running", `eval run ${runId} is ${stored.status === "running" ? "not running in this process" : stored.status}`);
    }
    active.ending ??= { status: "cancelled" };
    active.abort.abort();
    await active.done;
    return copy(active.snapshot);
  }

  /** On start: runs stored as running belong to a process that is gone; they end as failed. */
  async recover(): Promise<void> {
    for (const run of await this.#store.list()) {
      if (run.status !== "running" || run.runId === this.#active?.snapshot.runId) continue;
      this.#end(run, "failed", "the host restarted before the run finished");
      await this.#store.save(run);
    }
  }

  /** Ends the running run as failed (its turns are stopped) before the host drains. */
  async close(): Promise<void> {
    this.#closing = true;
    const active = this.#active;
    if (active) {
      active.ending ??= { status: "failed", error: "the host closed before the run finished" };
      active.abort.abort();
      await active.done;
    }
    await this.#store.flush();
  }

  // --- internals ---

  async #execute(active: ActiveRun, selected: EvalCase[], options: StartRunOptions, auth: AuthContext): Promise<void> {
    const { snapshot, abort } = active;
    const { maxConcurrency, timeoutMs: configTimeout } = this.config();
    // close() came while the first snapshot was being stored: nothing runs.
    if (this.#closing) {
      active.ending ??= { status: "failed", error: "the host closed before the run finished" };
      abort.abort();
    }
    const queue = selected.map((item, index) => ({ item, index }));
    const worker = async (): Promise<void> => {
      for (let next = queue.shift(); next && !abort.signal.aborted; next = queue.shift()) {
        const { item, index } = next;
        const slot = snapshot.cases[index]!;
        slot.status = "running";
        const result = await runCase(item, {
          driver: {
            log: this.#deps.log,
            send: (message, sendOptions) =>
              this.#deps.sessions.send(EVAL_CHANNEL, message, { ...sendOptions, purpose: "eval", auth, mode: "chat" }),
            ...(this.#deps.toolEffect ? { toolEffect: this.#deps.toolEffect } : {}),
          },
          stop: (sessionId) => this.#deps.stop(sessionId),
          timeoutMs: item.timeoutMs ?? options.timeoutMs ?? configTimeout,
          signal: abort.signal,
          now: this.#deps.now,
          onSession: (sessionId) => {
            slot.sessionId = sessionId;
            // Stored at once: after a crash, the session of an unfinished case is still findable.
            if (!abort.signal.aborted) void this.#save(snapshot);
          },
        });
        snapshot.cases[index] = result;
        count(snapshot);
        if (!abort.signal.aborted) await this.#save(snapshot);
      }
    };
    try {
      await Promise.all(Array.from({ length: Math.min(maxConcurrency, queue.length) }, worker));
    } catch (error) {
      this.#deps.logger.error(`[evals] eval run ${snapshot.runId} failed`, error);
      snapshot.errors.push({ message: `the run failed: ${errorMessage(error)}`, at: this.#iso() });
    }
    const ending = active.ending;
    if (ending) this.#end(snapshot, ending.status, ending.error);
    else this.#end(snapshot, snapshot.errors.length > 0 ? "failed" : "completed");
    await this.#save(snapshot);
    if (this.#active === active) this.#active = undefined;
  }

  /** Final status: unfinished cases are cancelled, the counts and finish time are set. */
  #end(snapshot: EvalRunSnapshot, status: EvalRunSnapshot["status"], error?: string): void {
    for (const item of snapshot.cases) if (item.status === "pending" || item.status === "running") item.status = "cancelled";
    if (error !== undefined) snapshot.errors.push({ message: error, at: this.#iso() });
    snapshot.status = status;
    snapshot.finishedAt = this.#iso();
    count(snapshot);
  }

  async #save(snapshot: EvalRunSnapshot): Promise<void> {
    try {
      await this.#store.save(snapshot);
    } catch {
      // Logged by the store; the in-memory snapshot stays authoritative while the run is active.
    }
  }

  #iso(): string {
    return new Date(this.#deps.now()).toISOString();
  }
}

// --- internals ---

function count(snapshot: EvalRunSnapshot): void {
  snapshot.passed = snapshot.cases.filter((item: EvalCaseResult) => item.status === "passed").length;
  snapshot.failed = snapshot.cases.filter((item: EvalCaseResult) => item.status === "failed").length;
}

function copy(snapshot: EvalRunSnapshot): EvalRunSnapshot {
  return JSON.parse(JSON.stringify(snapshot)) as EvalRunSnapshot; // SAFETY: a plain JSON value copied
}

const runNotFound = (): HTTPError => notFound("eval_run_not_found", "no eval run with that id");
