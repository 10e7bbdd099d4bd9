/**
 * Session records, continuation-token index and the "active" markers recovery starts from.
 *
 * Records are read from storage on every use rather than cached, so removing a session takes
 * effect at once (it leaves listings and answers 404). The `*Write` methods build the record
 * writes that other steps commit together with their events (docs/design/storage.md). Every
 * write of a record carries the listing index's entries for it (./session-index.ts).
 * @module
 */
import type { RecordWrite, StorageDriver } from "../../base/storage/types.ts";
import { KeyedLock } from "../../base/keyed-lock.ts";
import { ACTIVE_PREFIX, SESSIONS_PREFIX, activeKey, continuationKey as tokenKey, sessionRecordKey as recordKey } from "../../base/storage/keys.ts";
import type { SessionRecord } from "../../base/definitions/sessions.ts";
import { indexWrites, SessionIndex } from "./session-index.ts";

export class SessionStore {
  readonly #storage: StorageDriver;
  readonly #lock = new KeyedLock();
  readonly #now: () => number;
  /** The listing's index over these records (./session-index.ts). */
  readonly index: SessionIndex;

  constructor(storage: StorageDriver, now: () => number) {
    this.#storage = storage;
    this.#now = now;
    this.index = new SessionIndex(storage, () => this.list());
  }

  async get(sessionId: string): Promise<SessionRecord | undefined> {
    const raw = await this.#storage.get(recordKey(sessionId));
    return raw === undefined ? undefined : (JSON.parse(raw) as SessionRecord);
  }

  /** Writes a whole record, with its index entries moved from where the stored one had them. */
  async put(record: SessionRecord): Promise<void> {
    await this.#put(record, await this.get(record.sessionId));
  }

  async #put(record: SessionRecord, previous: SessionRecord | undefined): Promise<void> {
    await this.#storage.commit({ records: [this.recordWrite(record), ...indexWrites(record, previous)] });
  }

  /**
   * Read-modify-write of one record, serialized per session in this process so concurrent
   * updates (token rotation, turn status) never overwrite each other. Resolves undefined when the
   * record no longer exists.
   */
  update(sessionId: string, mutate: (record: SessionRecord) => void): Promise<SessionRecord | undefined> {
    return this.#lock.run(sessionId, async () => {
      const record = await this.get(sessionId);
      if (!record) return undefined;
      const previous = { ...record };
      mutate(record);
      record.updatedAt = new Date(this.#now()).toISOString();
      await this.#put(record, previous);
      return record;
    });
  }

  /**
   * Like `update`, but the new record is not written by itself: `commit` receives its write and
   * commits it together with whatever else belongs to the same step (events, token bindings).
   * The session stays locked until that commit is durable.
   */
  updateWith(
    sessionId: string,
    mutate: (record: SessionRecord) => void,
    commit: (writes: RecordWrite[], record: SessionRecord) => Promise<unknown>,
  ): Promise<SessionRecord | undefined> {
    return this.#lock.run(sessionId, async () => {
      const record = await this.get(sessionId);
      if (!record) return undefined;
      const previous = { ...record };
      mutate(record);
      record.updatedAt = new Date(this.#now()).toISOString();
      await commit([this.recordWrite(record), ...indexWrites(record, previous)], record);
      return record;
    });
  }

  recordWrite(record: SessionRecord): RecordWrite {
    return { key: recordKey(record.sessionId), value: JSON.stringify(record) };
  }

  /** The writes of a new session's record: the record and its index entries. */
  newRecordWrites(record: SessionRecord): RecordWrite[] {
    return [this.recordWrite(record), ...indexWrites(record, null)];
  }

  /** Binds `token` to the session, or unbinds it (`null`). */
  tokenWrite(channel: string, token: string, sessionId: string | null): RecordWrite {
    return { key: tokenKey(channel, token), value: sessionId };
  }

  /**
   * Marks the session as having an admitted turn run by `owner` (the process's turn-lease owner),
   * or clears the mark (`null`).
   */
  activeWrite(sessionId: string, owner: string | null): RecordWrite {
    return { key: activeKey(sessionId), value: owner };
  }

  /** Every stored record, in one scan of the store's key index: used by listings, never at start-up. */
  async list(): Promise<SessionRecord[]> {
    const entries = await this.#storage.entries(SESSIONS_PREFIX);
    const out: SessionRecord[] = [];
    for (const [key, raw] of entries) {
      if (!key.endsWith("/record")) continue;
      try {
        out.push(JSON.parse(raw) as SessionRecord);
      } catch {
        // A record torn by an external edit is skipped rather than failing the whole listing.
      }
    }
    return out;
  }

  /** The session a channel continuation token points at, if any. */
  async findByToken(channel: string, token: string): Promise<string | undefined> {
    return this.#storage.get(tokenKey(channel, token));
  }

  /**
   * Removes the session's records in one commit (record, token binding, active marker, and any
   * `extra` keys of the session), then its logs. After the commit the session answers 404.
   */
  async remove(record: SessionRecord, extraKeys: string[], logs: string[]): Promise<void> {
    await this.#lock.run(record.sessionId, async () => {
      // The record as stored now: its index entries may have moved since the caller read it.
      const current = await this.get(record.sessionId);
      const unindex = new Map([...indexWrites(null, record), ...(current ? indexWrites(null, current) : [])].map((write) => [write.key, write]));
      await this.#storage.commit({
        records: [
          ...unindex.values(),
          { key: recordKey(record.sessionId), value: null },
          this.tokenWrite(record.channel, record.continuationToken, null),
          this.activeWrite(record.sessionId, null),
          ...extraKeys.map((key) => ({ key, value: null })),
        ],
      });
      for (const log of logs) await this.#storage.deleteLog(log);
    });
  }

  /** Who the session's active marker says runs its turn, if it has one. */
  activeTurn(sessionId: string): Promise<string | undefined> {
    return this.#storage.get(activeKey(sessionId));
  }

  /** Marks the session active under `owner` (a parked turn resumed by another process). */
  async markActive(sessionId: string, owner: string): Promise<void> {
    await this.#storage.set(activeKey(sessionId), owner);
  }

  /** Drops the active marker (recovery, once the session's open turns are closed). */
  async clearActive(sessionId: string): Promise<void> {
    await this.#storage.delete(activeKey(sessionId));
  }

  async listActive(): Promise<string[]> {
    return (await this.#storage.list(ACTIVE_PREFIX)).map((key) => key.slice(ACTIVE_PREFIX.length));
  }
}
