/**
 * Eval runs in the agent's storage (key `eval-runs/<runId>`), so they survive restarts. Writes of
 * one run are applied in call order: a late write never replaces a newer snapshot.
 * @module
 */
import type { HostLogger } from "../../base/logging.ts";
import type { StorageDriver } from "../../base/storage/types.ts";
import type { EvalRunSnapshot } from "../../base/definitions/evals.ts";
import { EVAL_RUNS_PREFIX as PREFIX } from "../../base/storage/keys.ts";

const RUN_ID = /^eval_[A-Za-z0-9]{1,64}$/;

/** Run ids come from URLs; anything not shaped like one is simply unknown. */
export const isRunId = (value: string): boolean => RUN_ID.test(value);

export class EvalRunStore {
  readonly #storage: StorageDriver;
  readonly #logger: HostLogger;
  #writes: Promise<void> = Promise.resolve();

  constructor(storage: StorageDriver, logger: HostLogger) {
    this.#storage = storage;
    this.#logger = logger;
  }

  async get(runId: string): Promise<EvalRunSnapshot | undefined> {
    if (!isRunId(runId)) return undefined;
    return parse(await this.#storage.get(`${PREFIX}${runId}`));
  }

  /** Every stored run, newest first. */
  async list(): Promise<EvalRunSnapshot[]> {
    const keys = await this.#storage.list(PREFIX);
    const runs = await Promise.all(keys.map(async (key) => parse(await this.#storage.get(key))));
    return runs.filter((run): run is EvalRunSnapshot => run !== undefined).sort(newestFirst);
  }

  /** Stores the snapshot as it is now; resolves once it (and every earlier write) is stored. */
  save(snapshot: EvalRunSnapshot): Promise<void> {
    const text = JSON.stringify(snapshot);
    const write = this.#writes.then(() => this.#storage.set(`${PREFIX}${snapshot.runId}`, text));
    this.#writes = write.catch((error: unknown) => this.#logger.error(`[evals] cannot store eval run ${snapshot.runId}`, error));
    return write;
  }

  /** Resolves once every write so far is done (failed writes were logged). */
  flush(): Promise<void> {
    return this.#writes;
  }
}

export function newestFirst(a: EvalRunSnapshot, b: EvalRunSnapshot): number {
  if (a.startedAt !== b.startedAt) return a.startedAt < b.startedAt ? 1 : -1;
  return a.runId < b.runId ? 1 : a.runId > b.runId ? -1 : 0;
}

// --- internals ---

function parse(text: string | undefined): EvalRunSnapshot | undefined {
  if (text === undefined) return undefined;
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null && typeof (value as { runId?: unknown }).runId === "string"
      ? (value as EvalRunSnapshot) // SAFETY: written by save() from a snapshot
      : undefined;
  } catch {
    return undefined;
  }
}
