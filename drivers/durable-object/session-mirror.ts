/**
 * The outbox that carries a session object's coordinator writes (its record's mirror for the
 * session listing, token bindings) to the coordinator without a two-object transaction
 * (docs/design/cloudflare.md "Storage"). The session's part of a commit and an outbox entry with
 * the coordinator's part are one local transaction; the entries are then pushed with the storage
 * protocol's `mirror` op, which the coordinator applies only when its sequence number is newer than
 * the last it applied for the session, so a push may be repeated and a late older one changes
 * nothing. This file holds both ends.
 * @module
 */
import { type CommitBatch, RecordConflictError, type RecordWrite, type StorageDriver } from "../../src/base/storage/types.ts";

/** The coordinator's writes of one or more commits, by key (`null` deletes); later commits win. */
export type MirrorWrites = Record<string, string | null>;

/** The far side's `mirror` op (./remote-storage.ts). */
export interface MirrorTarget {
  mirror(session: string, seq: number, writes: MirrorWrites): Promise<unknown>;
}

export interface MirrorOutboxOptions {
  session: string;
  /** The session object's own database. */
  local: StorageDriver;
  coordinator(): MirrorTarget;
  warn(message: string, fields?: Record<string, unknown>): void;
}

/** Pending entries of the session's outbox: `sessions/<id>/mirror-pending/<seq>`. */
const entryPrefix = (session: string): string => `sessions/${session}/mirror-pending/`;
/** The last sequence number the coordinator acknowledged, kept once the entries are gone. */
const seqKey = (session: string): string => `sessions/${session}/mirror-seq`;
/** The coordinator's record of the last sequence number it applied for a session. */
const appliedKey = (session: string): string => `session-mirrors/${session}`;

export class MirrorOutbox {
  readonly #options: MirrorOutboxOptions;
  /** The last sequence number handed out. */
  #seq: number;
  /** Entries durable in the session's database and not yet acknowledged by the coordinator. */
  readonly #entries: Map<number, MirrorWrites>;
  readonly #inFlight = new Set<Promise<unknown>>();

  private constructor(options: MirrorOutboxOptions, seq: number, entries: Map<number, MirrorWrites>) {
    this.#options = options;
    this.#seq = seq;
    this.#entries = entries;
  }

  /** Reads what a previous instance left pending and pushes it; a failed push leaves it pending. */
  static async open(options: MirrorOutboxOptions): Promise<MirrorOutbox> {
    const { local, session } = options;
    const entries = new Map<number, MirrorWrites>();
    for (const [key, value] of await local.entries(entryPrefix(session))) {
      entries.set(Number(key.slice(entryPrefix(session).length)), JSON.parse(value) as MirrorWrites);
    }
    const seq = Math.max(Number((await local.get(seqKey(session))) ?? 0), ...entries.keys());
    const outbox = new MirrorOutbox(options, seq, entries);
    await outbox.flush().catch((error: unknown) => outbox.#warnUnpushed(error));
    return outbox;
  }

  /**
   * Commits the session's part with an outbox entry holding the coordinator's writes, sent now
   * (so it applies in call order with the object's other commits); resolves once the coordinator
   * has the writes too, or, when it cannot be reached, with them left pending.
   */
  commit(sessionPart: CommitBatch, coordinatorWrites: RecordWrite[]): Promise<number[]> {
    const seq = ++this.#seq;
    const writes = emptyWrites();
    for (const write of coordinatorWrites) writes[write.key] = write.value;
    const applied = this.#options.local.commit({
      records: [...(sessionPart.records ?? []), { key: `${entryPrefix(this.#options.session)}${seq}`, value: JSON.stringify(writes) }],
      appends: sessionPart.appends ?? [],
    });
    return this.#track(
      applied.then(async (firsts) => {
        this.#entries.set(seq, writes);
        await this.flush().catch((error: unknown) => this.#warnUnpushed(error));
        return firsts;
      }),
    );
  }

  /** Pushes every pending entry; rejects when the coordinator cannot be reached (they stay pending). */
  flush(): Promise<void> {
    return this.#track(this.#push());
  }

  /** Resolves when nothing is in flight (close waits for it). */
  async settled(): Promise<void> {
    while (this.#inFlight.size > 0) await Promise.allSettled(this.#inFlight);
  }

  // --- internals ---

  async #push(): Promise<void> {
    const seqs = [...this.#entries.keys()].sort((a, b) => a - b);
    const top = seqs.at(-1);
    if (top === undefined) return;
    const writes = emptyWrites();
    for (const seq of seqs) Object.assign(writes, this.#entries.get(seq));
    const { session, local } = this.#options;
    await this.#options.coordinator().mirror(session, top, writes);
    for (const seq of seqs) this.#entries.delete(seq);
    try {
      await local.commit({
        records: [...seqs.map((seq) => ({ key: `${entryPrefix(session)}${seq}`, value: null })), { key: seqKey(session), value: String(top) }],
      });
    } catch (error) {
      // The coordinator has them; pushing them again after a restart changes nothing there.
      this.#options.warn("[agent-serve] [cloudflare] could not clear the session's pushed outbox entries", { session, seq: top, error: String(error) });
    }
  }

  #warnUnpushed(error: unknown): void {
    this.#options.warn("[agent-serve] [cloudflare] the coordinator did not take the session's writes yet; they stay pending", {
      session: this.#options.session,
      pending: this.#entries.size,
      error: String(error),
    });
  }

  #track<T>(promise: Promise<T>): Promise<T> {
    this.#inFlight.add(promise);
    const done = (): void => void this.#inFlight.delete(promise);
    promise.then(done, done);
    return promise;
  }
}

/** Without a prototype, so any well-formed key (`__proto__` too) is an ordinary property. */
function emptyWrites(): MirrorWrites {
  return Object.create(null) as MirrorWrites;
}

/** The `mirror` op on the coordinator: one commit of the writes, only for a newer sequence number. */
export async function applyMirror(driver: StorageDriver, session: string, seq: number, writes: MirrorWrites): Promise<boolean> {
  if (!Number.isSafeInteger(seq) || seq < 1) throw new Error("[agent-serve] [storage] a mirror's seq must be a positive integer");
  const key = appliedKey(session);
  for (;;) {
    const applied = await driver.get(key);
    if (applied !== undefined && Number(applied) >= seq) return false;
    try {
      await driver.commit({
        records: [...Object.entries(writes).map(([record, value]) => ({ key: record, value })), { key, value: String(seq), expected: applied ?? null }],
      });
      return true;
    } catch (error) {
      // Another push for the session got in between: look again.
      if (!RecordConflictError.isError(error) || error.key !== key) throw error;
    }
  }
}
