/**
 * Live A/B totals for `GET /v1/abs`, folded from stored data.
 *
 * Each enrolled session has a tally of its turns and tokens. Sessions this process enrolls are
 * counted live from their first event (`log.onEvent`). Any other enrolled session (created before
 * a restart, or by another process sharing the storage) is rebuilt once from its stored event log
 * the first time a report needs it; events that arrive while that read is in flight are buffered
 * and applied past the last index read, so nothing is counted twice or missed. Assignments come
 * from the session records on every report, so a removed session leaves the totals at once.
 * @module
 */
import { type SessionEvent, isEvent } from "../../base/events/vocabulary.ts";
import type { EventLogView } from "../../base/events/log-view.ts";
import type { SessionRecordsView } from "../../base/definitions/sessions.ts";
import type { SessionRecord } from "../../base/definitions/sessions.ts";
import type { AbAssignment, ExperimentDefinition } from "../../base/definitions/experiments.ts";

/** Most sessions whose assignments one report lists (newest first). */
export const MAX_LISTED_SESSIONS = 200;

/** Stored logs read at once when a report rebuilds tallies. */
const REBUILD_CONCURRENCY = 16;

export interface ArmTotals {
  id: string;
  weight: number;
  /** Enrolled sessions that still exist. */
  sessions: number;
  /** Turns started or ended (a queued turn stopped before it ran still counts, as failed). */
  turns: number;
  completedTurns: number;
  failedTurns: number;
  inputTokens: number;
  outputTokens: number;
}

export interface AbReport {
  experiments: Array<{ id: string; arms: ArmTotals[] }>;
  assignments: Array<{ sessionId: string } & AbAssignment>;
  config: {
    /** Most sessions listed under `assignments`, newest first. */
    maxPlaygroundSessions: number;
    /** Assignments and per-turn samples are read from durable session data and survive restarts. */
    durableSamples: boolean;
    /** Aggregates are kept in memory and rebuilt from samples, never stored as snapshots. */
    durableSnapshots: boolean;
  };
}

interface Tally {
  /** Turns started and not yet ended. */
  open: Set<string>;
  turns: number;
  completed: number;
  failed: number;
  inputTokens: number;
  outputTokens: number;
}

type Entry = { state: "live"; tally: Tally } | { state: "building"; buffer: SessionEvent[]; done: Promise<void> };

export class AbMetrics {
  readonly #experiments: readonly ExperimentDefinition[];
  readonly #log: EventLogView;
  readonly #store: SessionRecordsView;
  readonly #entries = new Map<string, Entry>();

  constructor(deps: { experiments: readonly ExperimentDefinition[]; log: EventLogView; store: SessionRecordsView }) {
    this.#experiments = deps.experiments;
    this.#log = deps.log;
    this.#store = deps.store;
    deps.log.onEvent((event) => this.#observe(event));
  }

  /** A session enrolled by this process, before its first event: counted live from index 0. */
  track(sessionId: string): void {
    this.#entries.set(sessionId, { state: "live", tally: newTally() });
  }

  /**
   * Totals count every enrolled session; `assignments` lists only the sessions `visible` admits
   * (the caller's own, as session listings do), newest first.
   */
  async report(visible: (record: SessionRecord) => boolean = () => true): Promise<AbReport> {
    const records = (await this.#store.list()).filter((record) => record.ab?.length);
    await this.#ensureTallies(records);
    this.#prune(new Set(records.map((record) => record.sessionId)));

    const totals = new Map<string, ArmTotals>();
    const experiments = this.#experiments.map((experiment) => ({
      id: experiment.id,
      arms: experiment.arms.map((arm) => {
        const row: ArmTotals = { id: arm.id, weight: arm.weight, sessions: 0, turns: 0, completedTurns: 0, failedTurns: 0, inputTokens: 0, outputTokens: 0 };
        totals.set(armKey(experiment.id, arm.id), row);
        return row;
      }),
    }));
    for (const record of records) {
      const entry = this.#entries.get(record.sessionId);
      const tally = entry?.state === "live" ? entry.tally : undefined;
      for (const assignment of record.ab ?? []) {
        // Assignments to arms removed from the config since are listed but not totalled.
        const row = totals.get(armKey(assignment.experimentId, assignment.armId));
        if (!row) continue;
        row.sessions++;
        if (!tally) continue;
        row.turns += tally.turns;
        row.completedTurns += tally.completed;
        row.failedTurns += tally.failed;
        row.inputTokens += tally.inputTokens;
        row.outputTokens += tally.outputTokens;
      }
    }
    const assignments = records
      .filter(visible)
      .sort((a, b) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : 0))
      .slice(0, MAX_LISTED_SESSIONS)
      .flatMap((record) => (record.ab ?? []).map((a) => ({ sessionId: record.sessionId, experimentId: a.experimentId, armId: a.armId })));
    return {
      experiments,
      assignments,
      config: { maxPlaygroundSessions: MAX_LISTED_SESSIONS, durableSamples: true, durableSnapshots: false },
    };
  }

  // --- internals ---

  #observe(event: SessionEvent): void {
    if (!isTurnEvent(event)) return;
    const entry = this.#entries.get(event.sessionId);
    if (!entry) return;
    if (entry.state === "building") entry.buffer.push(event);
    else apply(entry.tally, event);
  }

  async #ensureTallies(records: readonly SessionRecord[]): Promise<void> {
    const waits: Array<Promise<void>> = [];
    const missing: string[] = [];
    for (const { sessionId } of records) {
      const entry = this.#entries.get(sessionId);
      if (!entry) missing.push(sessionId);
      else if (entry.state === "building") waits.push(entry.done);
    }
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < missing.length) await this.#rebuild(missing[next++]!);
    };
    await Promise.all([...waits, ...Array.from({ length: Math.min(REBUILD_CONCURRENCY, missing.length) }, worker)]);
  }

  /** Folds one session's stored log; events published meanwhile are buffered, then applied past the read. */
  #rebuild(sessionId: string): Promise<void> {
    // Registered before the read starts, so every event published from now on is buffered.
    const entry: Entry & { state: "building" } = { state: "building", buffer: [], done: Promise.resolve() };
    this.#entries.set(sessionId, entry);
    entry.done = this.#fold(sessionId, entry.buffer);
    return entry.done;
  }

  async #fold(sessionId: string, buffer: readonly SessionEvent[]): Promise<void> {
    const tally = newTally();
    let last = -1;
    try {
      for await (const lines of this.#log.read(sessionId, 0)) {
        for (const line of lines) {
          const event = JSON.parse(line) as SessionEvent;
          last = event.index;
          if (isTurnEvent(event)) apply(tally, event);
        }
      }
    } catch {
      // Unreadable now (removed meanwhile, storage hiccup): left out of this report, retried next time.
      this.#entries.delete(sessionId);
      return;
    }
    for (const event of buffer) if (event.index > last) apply(tally, event);
    this.#entries.set(sessionId, { state: "live", tally });
  }

  /** Forgets sessions whose records are gone; a session that reappears is simply rebuilt. */
  #prune(present: ReadonlySet<string>): void {
    for (const [sessionId, entry] of this.#entries) {
      if (entry.state === "live" && !present.has(sessionId)) this.#entries.delete(sessionId);
    }
  }
}

// --- internals ---

const newTally = (): Tally => ({ open: new Set(), turns: 0, completed: 0, failed: 0, inputTokens: 0, outputTokens: 0 });

const armKey = (experimentId: string, armId: string): string => JSON.stringify([experimentId, armId]);

function isTurnEvent(event: SessionEvent): boolean {
  return event.type === "turn.started" || event.type === "turn.completed" || event.type === "turn.failed";
}

function apply(tally: Tally, event: SessionEvent): void {
  const turnId = event.turnId ?? "";
  if (event.type === "turn.started") {
    tally.turns++;
    tally.open.add(turnId);
    return;
  }
  // A turn that ends without having started (stopped while queued) still counts once.
  if (!tally.open.delete(turnId)) tally.turns++;
  if (event.type === "turn.failed") {
    tally.failed++;
    return;
  }
  tally.completed++;
  if (!isEvent(event, "turn.completed")) return;
  tally.inputTokens += event.data.usage?.inputTokens ?? 0;
  tally.outputTokens += event.data.usage?.outputTokens ?? 0;
}
