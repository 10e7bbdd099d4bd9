/**
 * Session records, continuation-token index and the "active" markers recovery starts from.
 *
 * Records are read from storage on every use rather than cached, so removing a session's stored
 * data takes effect at once (docs/design/foundation.md "Sessions and events": it leaves listings
 * and answers 404).
 * @module
 */
import type { AbAssignment } from "../experiments/types.ts";
import type { AuthContext } from "../http/auth-types.ts";
import type { StorageDriver } from "../storage/types.ts";
import { KeyedLock } from "./keyed-lock.ts";

export type SessionStatus = "idle" | "running" | "queued" | "completed" | "failed";

export interface SessionRecord {
  sessionId: string;
  channel: string;
  mode: "chat" | "task";
  title?: string;
  owner: AuthContext;
  continuationToken: string;
  status: SessionStatus;
  turnCount: number;
  createdAt: string;
  updatedAt: string;
  /** Per-session channel state (JSON), as declared by the channel. */
  state?: Record<string, unknown>;
  /** `eval` traffic is marked so hooks and A/B enrollment can skip it. */
  purpose?: string;
  /** Sticky A/B arms drawn at creation, one per experiment; every turn of the session uses them. */
  ab?: AbAssignment[];
  /** A workspace directory a send chose for this session (host code); wins over the local options. */
  workspaceDir?: string;
}

const recordKey = (sessionId: string): string => `sessions/${sessionId}/record`;
const activeKey = (sessionId: string): string => `active/${sessionId}`;
const tokenKey = (channel: string, token: string): string => `continuations/${channel}/${encodeToken(token)}`;

export class SessionStore {
  readonly #storage: StorageDriver;
  readonly #lock = new KeyedLock();
  readonly #now: () => number;

  constructor(storage: StorageDriver, now: () => number) {
    this.#storage = storage;
    this.#now = now;
  }

  async get(sessionId: string): Promise<SessionRecord | undefined> {
    const raw = await this.#storage.get(recordKey(sessionId));
    return raw === undefined ? undefined : (JSON.parse(raw) as SessionRecord);
  }

  async put(record: SessionRecord): Promise<void> {
    await this.#storage.set(recordKey(record.sessionId), JSON.stringify(record));
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
      mutate(record);
      record.updatedAt = new Date(this.#now()).toISOString();
      await this.put(record);
      return record;
    });
  }

  /** Every stored record. Reads them all: used by listings, never at start-up. */
  async list(): Promise<SessionRecord[]> {
    const keys = (await this.#storage.list("sessions/")).filter((key) => key.endsWith("/record"));
    const records = await Promise.all(keys.map((key) => this.#storage.get(key)));
    const out: SessionRecord[] = [];
    for (const raw of records) {
      if (raw === undefined) continue;
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

  async bindToken(channel: string, token: string, sessionId: string): Promise<void> {
    await this.#storage.set(tokenKey(channel, token), sessionId);
  }

  async unbindToken(channel: string, token: string): Promise<void> {
    await this.#storage.delete(tokenKey(channel, token));
  }

  /** Marks a session as having an admitted turn, so a crash can be recovered without a scan. */
  async markActive(sessionId: string, turnId: string): Promise<void> {
    // Serialized per session, so a clear and a mark racing around a turn's end land in call order.
    await this.#lock.run(activeKey(sessionId), () => this.#storage.set(activeKey(sessionId), turnId));
  }

  async clearActive(sessionId: string): Promise<void> {
    await this.#lock.run(activeKey(sessionId), () => this.#storage.delete(activeKey(sessionId)));
  }

  async listActive(): Promise<string[]> {
    return (await this.#storage.list("active/")).map((key) => key.slice("active/".length));
  }
}

// --- internals ---

/** Channel tokens are free-form (`pr:owner/repo#1`); base64url makes them one safe key segment. */
function encodeToken(token: string): string {
  const bytes = new TextEncoder().encode(token);
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replaceAll("+", "-").replaceAll("/", "_").replaceAll("=", "");
}
