/**
 * Per-agent event logs over the storage port: index assignment, group commit and live fan-out.
 *
 * Guarantee (docs/design/storage.md): an event is durably appended before any follower sees it,
 * and indexes are contiguous from 0. Appends for one session are queued and flushed by one writer,
 * so events that pile up while a write is in flight go to storage as one batch. An append may carry
 * other writes (the session record, a token binding, the conversation) that must land in the same
 * commit: all of them or none survive a crash.
 * @module
 */
import type { LeaseRelease, LogAppend, RecordWrite, StorageDriver } from "../../base/storage/types.ts";
import { type EventDraft, type SessionEvent, serializeEvent } from "../../base/events/vocabulary.ts";
import { eventLogName } from "../../base/storage/keys.ts";
import type { LogListener } from "../../base/events/follow.ts";

/** Writes that commit together with the events of one `append`. */
export interface CommitWith {
  records?: RecordWrite[];
  appends?: LogAppend[];
  /** Leases given back in the same commit (only where the driver has `releasesInCommit`). */
  releases?: LeaseRelease[];
  /** Times the drafts keep instead of now, by position (events copied into a fork). */
  at?: ReadonlyArray<string | undefined>;
  /**
   * A count from `failures`: the append is refused (with that failure's error) when a write of
   * the session has failed since. Sent while earlier writes are in flight, it commits right
   * behind them, and their index checks refuse it if one of them fails later; this covers the
   * ones that failed before (docs/design/speed.md "The turn's end behind its last step").
   */
  unlessFailedSince?: number;
}

interface Pending {
  drafts: Array<{ draft: EventDraft; at: string }>;
  records: RecordWrite[];
  appends: LogAppend[];
  /** Made only for the rare batch that releases a lease (a turn's end). */
  releases?: LeaseRelease[];
  resolvers: Array<{ resolve: (events: SessionEvent[]) => void; reject: (error: unknown) => void; count: number }>;
}

interface Writer {
  nextIndex: number | undefined;
  pending: Pending | undefined;
  flushing: boolean;
  /** Commits sent and not yet settled. */
  inFlight: number;
  /** Writes of this session that failed in this process, and the last one's error. */
  failures: number;
  lastFailure?: unknown;
}

/** Writers (each caching a log length) kept for recently written sessions. */
const MAX_CACHED_WRITERS = 10_000;


export class EventLog {
  readonly #storage: StorageDriver;
  readonly #now: () => number;
  readonly #writers = new Map<string, Writer>();
  readonly #global = new Set<(event: SessionEvent) => void>();

  constructor(storage: StorageDriver, now: () => number) {
    this.#storage = storage;
    this.#now = now;
  }

  /**
   * Appends events in order; resolves with them (indexed) once durable and published. `also`
   * commits with them, in the same transaction.
   */
  append(sessionId: string, drafts: EventDraft[], also?: CommitWith): Promise<SessionEvent[]> {
    const writer = this.#writer(sessionId);
    if (also?.unlessFailedSince !== undefined && writer.failures !== also.unlessFailedSince) return Promise.reject(writer.lastFailure);
    const at = new Date(this.#now()).toISOString();
    const pending = (writer.pending ??= { drafts: [], records: [], appends: [], resolvers: [] });
    for (const [i, draft] of drafts.entries()) pending.drafts.push({ draft, at: also?.at?.[i] ?? at });
    if (also?.records) pending.records.push(...also.records);
    if (also?.appends) pending.appends.push(...also.appends);
    if (also?.releases) (pending.releases ??= []).push(...also.releases);
    const done = new Promise<SessionEvent[]>((resolve, reject) => {
      pending.resolvers.push({ resolve, reject, count: drafts.length });
    });
    if (!writer.flushing) void this.#flush(sessionId, writer);
    return done;
  }

  /**
   * Marks a session created just now (a fresh id): its log is empty, so its first append is sent
   * in the caller's synchronous run, without a length read. Its `expectedIndex` of 0 still guards
   * the assumption: a log that existed after all rejects the commit and writes nothing.
   */
  fresh(sessionId: string): void {
    const writer = this.#writer(sessionId);
    if (writer.nextIndex === undefined && idle(writer)) writer.nextIndex = 0;
  }

  /** Drops what this process caches about a session's log (the session was removed, or another process may have written it since). */
  forget(sessionId: string): void {
    const writer = this.#writers.get(sessionId);
    if (writer && idle(writer)) {
      // A writer that saw a failure keeps its count: `unlessFailedSince` compares against it.
      if (writer.failures === 0) this.#writers.delete(sessionId);
      else writer.nextIndex = undefined;
    }
  }

  /**
   * Whether an append made now reaches the driver in the caller's synchronous run: the log's
   * length is known and no earlier batch is still waiting for it. A write sent to the driver
   * directly (a lease) after such an append is applied after it (docs/design/speed.md "The lease
   * goes with the turn's end").
   */
  sendsAtOnce(sessionId: string): boolean {
    const writer = this.#writers.get(sessionId);
    return writer !== undefined && writer.nextIndex !== undefined && !writer.flushing;
  }

  /** How many writes of the session have failed in this process so far (for `unlessFailedSince`). */
  failures(sessionId: string): number {
    return this.#writer(sessionId).failures;
  }

  /** Number of durable events (what a reader can see now). */
  length(sessionId: string): Promise<number> {
    return this.#storage.length(eventLogName(sessionId));
  }

  read(sessionId: string, from = 0, to?: number): AsyncIterable<string[]> {
    return this.#storage.read(eventLogName(sessionId), from, to);
  }

  async readEvents(sessionId: string, from = 0): Promise<SessionEvent[]> {
    const events: SessionEvent[] = [];
    for await (const batch of this.read(sessionId, from)) {
      for (const line of batch) events.push(JSON.parse(line) as SessionEvent);
    }
    return events;
  }

  /** Live lines of one session, delivered after they are durable (the driver's `follow`). */
  subscribe(sessionId: string, listener: LogListener): () => void {
    return this.#storage.follow(eventLogName(sessionId), listener);
  }

  /** Every event of every session of this agent (hooks, evals, tests). */
  onEvent(listener: (event: SessionEvent) => void): () => void {
    this.#global.add(listener);
    return () => this.#global.delete(listener);
  }

  // --- internals ---

  #writer(sessionId: string): Writer {
    let writer = this.#writers.get(sessionId);
    if (writer) return writer;
    writer = { nextIndex: undefined, pending: undefined, flushing: false, inFlight: 0, failures: 0 };
    this.#writers.set(sessionId, writer);
    if (this.#writers.size > MAX_CACHED_WRITERS) this.#evictIdleWriters();
    return writer;
  }

  /** Drops the oldest idle writers; a dropped writer only costs one length read when reused. */
  #evictIdleWriters(): void {
    for (const [sessionId, writer] of this.#writers) {
      if (this.#writers.size <= MAX_CACHED_WRITERS * 0.9) break;
      if (idle(writer) && writer.failures === 0) this.#writers.delete(sessionId);
    }
  }

  /**
   * Sends each batch as soon as its indexes are known, without waiting for the previous batch's
   * commit: the driver applies one caller's commits in call order, so batches of one session that
   * are sent close together share one group commit. If one fails, the ones after it fail their
   * `expectedIndex` check and write nothing; the length is then read again.
   */
  async #flush(sessionId: string, writer: Writer): Promise<void> {
    writer.flushing = true;
    try {
      while (writer.pending) {
        const batch = writer.pending;
        writer.pending = undefined;
        let first: number;
        try {
          first = writer.nextIndex ??= await this.#storage.length(eventLogName(sessionId));
        } catch (error) {
          writer.failures++;
          writer.lastFailure = error;
          for (const { reject } of batch.resolvers) reject(error);
          continue;
        }
        writer.nextIndex = first + batch.drafts.length;
        writer.inFlight++;
        void this.#write(sessionId, writer, batch, first).finally(() => writer.inFlight--);
      }
    } finally {
      writer.flushing = false;
    }
  }

  async #write(sessionId: string, writer: Writer, batch: Pending, first: number): Promise<void> {
    const log = eventLogName(sessionId);
    try {
      // SAFETY: the envelope keeps each draft's type with its own payload.
      const events = batch.drafts.map(({ draft, at }, i) => ({
        type: draft.type,
        index: first + i,
        sessionId,
        ...(draft.turnId === undefined ? {} : { turnId: draft.turnId }),
        at,
        data: draft.data,
      }) as SessionEvent);
      const lines = events.map(serializeEvent);
      await this.#storage.commit({
        records: batch.records,
        appends: [{ log, lines, expectedIndex: first }, ...batch.appends],
        ...(batch.releases ? { releases: batch.releases } : {}),
      });
      this.#publish(events);
      let offset = 0;
      for (const { resolve, count } of batch.resolvers) {
        resolve(events.slice(offset, offset + count));
        offset += count;
      }
    } catch (error) {
      // The length is re-read on the next write: a failed or conflicting write leaves it unknown.
      writer.nextIndex = undefined;
      writer.failures++;
      writer.lastFailure = error;
      for (const { reject } of batch.resolvers) reject(error);
    }
  }

  #publish(events: SessionEvent[]): void {
    if (this.#global.size > 0) {
      for (const event of events) for (const listener of this.#global) listener(event);
    }
  }
}

const idle = (writer: Writer): boolean => !writer.flushing && !writer.pending && writer.inFlight === 0;
