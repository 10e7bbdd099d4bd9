/**
 * Per-agent event logs over the storage port: index assignment, group commit and live fan-out.
 *
 * Guarantee (docs/design/foundation.md "Guarantees"): an event is durably appended before any
 * follower sees it, and indexes are contiguous from 0. Appends for one session are queued and
 * flushed by one writer, so events that pile up while a write is in flight go to storage as one
 * batch.
 * @module
 */
import type { StorageDriver } from "../storage/types.ts";
import { type EventDraft, type SessionEvent, serializeEvent } from "./events.ts";

export type LogListener = (firstIndex: number, lines: readonly string[]) => void;

interface Pending {
  drafts: Array<{ draft: EventDraft; at: string }>;
  resolvers: Array<{ resolve: (events: SessionEvent[]) => void; reject: (error: unknown) => void; count: number }>;
}

interface Writer {
  nextIndex: number | undefined;
  pending: Pending | undefined;
  flushing: boolean;
}

/** Writers (each caching a log length) kept for recently written sessions. */
const MAX_CACHED_WRITERS = 10_000;

export const eventLogName = (sessionId: string): string => `sessions/${sessionId}/events`;

export class EventLog {
  readonly #storage: StorageDriver;
  readonly #now: () => number;
  readonly #writers = new Map<string, Writer>();
  readonly #listeners = new Map<string, Set<LogListener>>();
  readonly #global = new Set<(event: SessionEvent) => void>();

  constructor(storage: StorageDriver, now: () => number) {
    this.#storage = storage;
    this.#now = now;
  }

  /** Appends events in order; resolves with them (indexed) once durable and published. */
  append(sessionId: string, drafts: EventDraft[]): Promise<SessionEvent[]> {
    const writer = this.#writer(sessionId);
    const at = new Date(this.#now()).toISOString();
    const pending = (writer.pending ??= { drafts: [], resolvers: [] });
    for (const draft of drafts) pending.drafts.push({ draft, at });
    const done = new Promise<SessionEvent[]>((resolve, reject) => {
      pending.resolvers.push({ resolve, reject, count: drafts.length });
    });
    if (!writer.flushing) void this.#flush(sessionId, writer);
    return done;
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

  /** Live lines of one session, delivered after they are durable. */
  subscribe(sessionId: string, listener: LogListener): () => void {
    let set = this.#listeners.get(sessionId);
    if (!set) this.#listeners.set(sessionId, (set = new Set()));
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0 && this.#listeners.get(sessionId) === set) this.#listeners.delete(sessionId);
    };
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
    writer = { nextIndex: undefined, pending: undefined, flushing: false };
    this.#writers.set(sessionId, writer);
    if (this.#writers.size > MAX_CACHED_WRITERS) this.#evictIdleWriters();
    return writer;
  }

  /** Drops the oldest idle writers; a dropped writer only costs one length read when reused. */
  #evictIdleWriters(): void {
    for (const [sessionId, writer] of this.#writers) {
      if (this.#writers.size <= MAX_CACHED_WRITERS * 0.9) break;
      if (!writer.flushing && !writer.pending) this.#writers.delete(sessionId);
    }
  }

  async #flush(sessionId: string, writer: Writer): Promise<void> {
    writer.flushing = true;
    try {
      while (writer.pending) {
        const batch = writer.pending;
        writer.pending = undefined;
        await this.#write(sessionId, writer, batch);
      }
    } finally {
      writer.flushing = false;
    }
  }

  async #write(sessionId: string, writer: Writer, batch: Pending): Promise<void> {
    const log = eventLogName(sessionId);
    try {
      writer.nextIndex ??= await this.#storage.length(log);
      const first = writer.nextIndex;
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
      await this.#storage.append(log, lines, first);
      writer.nextIndex = first + lines.length;
      this.#publish(sessionId, first, lines, events);
      let offset = 0;
      for (const { resolve, count } of batch.resolvers) {
        resolve(events.slice(offset, offset + count));
        offset += count;
      }
    } catch (error) {
      // The length is re-read on the next write: a failed or conflicting write leaves it unknown.
      writer.nextIndex = undefined;
      for (const { reject } of batch.resolvers) reject(error);
    }
  }

  #publish(sessionId: string, first: number, lines: string[], events: SessionEvent[]): void {
    const listeners = this.#listeners.get(sessionId);
    if (listeners) for (const listener of listeners) listener(first, lines);
    if (this.#global.size > 0) {
      for (const event of events) for (const listener of this.#global) listener(event);
    }
  }
}
