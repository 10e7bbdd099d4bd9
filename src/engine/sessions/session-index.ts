/**
 * The session listing's index (docs/design/listing.md): every session has one entry under all
 * sessions and one under its owner's, at its `updatedAt` position (newest first), holding the
 * summary the listing shows. The entries are written in the same commit as the record they
 * describe, so a page is one bounded range read of the store whatever the number of sessions.
 * Sessions stored before the index existed are indexed once, on the first listing.
 * @module
 */
import type { SessionRecord } from "../../base/definitions/sessions.ts";
import type { RecordWrite, StorageDriver } from "../../base/storage/types.ts";
import {
  SESSION_INDEX_ALL_PREFIX,
  SESSION_INDEX_READY_KEY,
  sessionIndexOwnerPrefix,
  sessionIndexPosition,
} from "../../base/storage/keys.ts";

/** What an index entry holds: the record's listed fields and its owner's principal. */
export type IndexedSession = Pick<SessionRecord, "sessionId" | "channel" | "mode" | "status" | "turnCount" | "createdAt" | "updatedAt" | "continuationToken"> & {
  title: string | null;
  principalId: string;
};

export interface IndexPage {
  sessions: IndexedSession[];
  /** The position the next page starts after, when there may be one. */
  next?: string;
}

/** Records written per commit while indexing older sessions. */
const BACKFILL_BATCH = 256;

/**
 * The index writes of one record change: the entries at the new position (`next`), and the
 * removal of those at the old one when it moved or the session is gone (`next` null).
 */
export function indexWrites(next: SessionRecord | null, previous: SessionRecord | null | undefined): RecordWrite[] {
  const writes: RecordWrite[] = [];
  const at = next ? sessionIndexPosition(next.updatedAt, next.sessionId) : undefined;
  if (previous) {
    const before = sessionIndexPosition(previous.updatedAt, previous.sessionId);
    if (before !== at) for (const prefix of prefixesOf(previous)) writes.push({ key: prefix + before, value: null });
  }
  if (next) {
    const value = JSON.stringify(indexed(next));
    for (const prefix of prefixesOf(next)) writes.push({ key: prefix + at!, value });
  }
  return writes;
}

export class SessionIndex {
  readonly #storage: StorageDriver;
  readonly #records: () => Promise<SessionRecord[]>;
  #ready = false;
  #backfill: Promise<void> | undefined;

  /** `records` reads every stored record (the one full scan, done once per store). */
  constructor(storage: StorageDriver, records: () => Promise<SessionRecord[]>) {
    this.#storage = storage;
    this.#records = records;
  }

  /**
   * Up to `limit` sessions after `after` (a position from an earlier page), newest-updated
   * first: every session when `principalId` is undefined (a wide viewer), else the principal's.
   */
  async page(principalId: string | undefined, limit: number, after?: string): Promise<IndexPage> {
    try {
      await this.ready();
    } catch {
      // Indexing the older sessions writes, and a store that takes no writes (full, read-only:
      // docs/design/faults.md) must still answer reads: this page comes from the records, in the
      // same order, and the next listing tries the indexing again.
      return this.#scanPage(principalId, limit, after);
    }
    const prefix = principalId === undefined ? SESSION_INDEX_ALL_PREFIX : sessionIndexOwnerPrefix(principalId);
    const sessions: IndexedSession[] = [];
    const seen = new Set<string>();
    let from = after === undefined ? undefined : prefix + after;
    let last = "";
    // One more than asked says whether another page exists; an entry of another principal (a
    // shared hashed segment) or a repeated session is passed over and the read goes on.
    for (;;) {
      const want = limit + 1 - sessions.length;
      const entries = await this.#storage.entriesPage(prefix, { limit: want, ...(from === undefined ? {} : { after: from }) });
      for (const [key, raw] of entries) {
        const session = parse(raw);
        if (!session || seen.has(session.sessionId)) continue;
        if (principalId !== undefined && session.principalId !== principalId) continue;
        if (sessions.length === limit) return { sessions, next: last.slice(prefix.length) };
        seen.add(session.sessionId);
        sessions.push(session);
        last = key;
      }
      if (entries.length < want) return { sessions };
      from = entries.at(-1)![0];
    }
  }

  /** A page cut from every stored record, in the index's order: the listing before the index exists. */
  async #scanPage(principalId: string | undefined, limit: number, after?: string): Promise<IndexPage> {
    const placed = (await this.#records())
      .filter((record) => isIndexable(record) && (principalId === undefined || record.owner.principalId === principalId))
      .map((record) => ({ at: sessionIndexPosition(record.updatedAt, record.sessionId), session: indexed(record) }))
      .filter(({ at }) => after === undefined || at > after)
      .sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
    const sessions = placed.slice(0, limit).map(({ session }) => session);
    return placed.length > limit ? { sessions, next: placed[limit - 1]!.at } : { sessions };
  }

  /** Indexes the sessions stored before the index existed, once per store (docs/design/listing.md "Older sessions"). */
  ready(): Promise<void> {
    if (this.#ready) return Promise.resolve();
    this.#backfill ??= this.#indexOlder().then(
      () => {
        this.#ready = true;
      },
      (error: unknown) => {
        this.#backfill = undefined;
        throw error;
      },
    );
    return this.#backfill;
  }

  async #indexOlder(): Promise<void> {
    if ((await this.#storage.get(SESSION_INDEX_READY_KEY)) !== undefined) return;
    const written = new Map<string, SessionRecord>();
    const records = await this.#records();
    for (let i = 0; i < records.length; i += BACKFILL_BATCH) {
      const batch = records.slice(i, i + BACKFILL_BATCH).filter(isIndexable);
      await this.#storage.commit({ records: batch.flatMap((record) => indexWrites(record, null)) });
      for (const record of batch) written.set(record.sessionId, record);
    }
    // A session changed or removed while it was being indexed got its own entries from that
    // commit, and what was written here for it may now be stale: looked at again, after every
    // write above, each such entry is corrected from the record as it stands now.
    const now = new Map((await this.#records()).map((record) => [record.sessionId, record]));
    const fixes: RecordWrite[] = [];
    for (const [sessionId, wrote] of written) {
      const current = now.get(sessionId);
      if (current && JSON.stringify(indexed(current)) === JSON.stringify(indexed(wrote))) continue;
      fixes.push(...indexWrites(current && isIndexable(current) ? current : null, wrote));
    }
    for (let i = 0; i < fixes.length; i += BACKFILL_BATCH) await this.#storage.commit({ records: fixes.slice(i, i + BACKFILL_BATCH) });
    await this.#storage.set(SESSION_INDEX_READY_KEY, new Date().toISOString());
  }
}

// --- internals ---

function prefixesOf(record: SessionRecord): string[] {
  return [SESSION_INDEX_ALL_PREFIX, sessionIndexOwnerPrefix(record.owner.principalId)];
}

function indexed(record: SessionRecord): IndexedSession {
  return {
    sessionId: record.sessionId,
    channel: record.channel,
    mode: record.mode,
    title: record.title ?? null,
    status: record.status,
    turnCount: record.turnCount,
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
    continuationToken: record.continuationToken,
    principalId: record.owner.principalId,
  };
}

/** A record torn by an outside edit (no owner, no id) is left out of the index, as the old listing skipped it. */
function isIndexable(record: SessionRecord): boolean {
  return typeof record.sessionId === "string" && /^[A-Za-z0-9_.-]{1,128}$/.test(record.sessionId) && typeof record.owner?.principalId === "string";
}

function parse(raw: string): IndexedSession | undefined {
  try {
    const value = JSON.parse(raw) as IndexedSession;
    return typeof value?.sessionId === "string" ? value : undefined;
  } catch {
    return undefined;
  }
}
