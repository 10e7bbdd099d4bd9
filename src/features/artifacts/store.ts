/**
 * The artifact store (docs/design/tools.md "Artifacts"): one record per (kind, key), an optional
 * payload, a retention cap that evicts the oldest-updated record, and `artifact.tagged` on the
 * attributed session's stream.
 *
 * Storage keys: `artifacts/<id>` (the record, JSON) and `artifact-content/<id>` (the payload).
 * The records are loaded once, lazily, into memory; they are bounded by the cap, so tagging,
 * listing and eviction never scan storage. A `Map` kept in update order makes the oldest-updated
 * record its first entry, whatever the clock says.
 * @module
 */
import { badRequest, createError } from "../../base/errors.ts";
import { isSessionId, randomId } from "../../base/ids.ts";
import type { EventLogView, EventSink } from "../../base/events/log-view.ts";
import type { ArtifactEventView } from "../../base/events/vocabulary.ts";
import type { StorageDriver } from "../../base/storage/types.ts";
import type { HostLogger } from "../../base/logging.ts";
import { decodePayload, encodePayload } from "./content.ts";
import { type NormalizedTag, normalizeTag } from "./tag-input.ts";
import type { ArtifactRecord, ArtifactsDefinition, ArtifactsFacade, TagInput } from "../../base/definitions/artifacts.ts";
import { ARTIFACTS_PREFIX, artifactContentKey as contentKey, artifactRecordKey as recordKey } from "../../base/storage/keys.ts";

/** Retention cap when the declaration sets none (docs/guide/http-api.md "Limits"). */
export const DEFAULT_MAX_ARTIFACTS = 1000;

export interface ArtifactStoreOptions {
  storage: StorageDriver;
  /** The agent's `defineArtifacts` declaration. @default no kinds (any kind accepted), max 1000 */
  definition?: ArtifactsDefinition;
  /** Where `artifact.tagged` is appended. */
  log: EventSink & Pick<EventLogView, "length">;
  now: () => number;
  logger: HostLogger;
}

/** Who tagged, and for which session and turn (bound facades and the tag tool know both). */
export interface TagAttribution {
  source: "host" | "model";
  sessionId?: string;
  turnId?: string;
}

export interface ArtifactFilter {
  kind?: string;
  sessionId?: string;
  /** At most this many records. @default all */
  limit?: number;
  /** Only records after this one in the list's order (a page's last; docs/design/listing.md "Artifacts"). */
  after?: ArtifactPosition;
}

/** A place in the list's order (newest-updated first): the record there and its `updatedAt`. */
export interface ArtifactPosition {
  updatedAt: string;
  id: string;
}

export interface ArtifactContent {
  body: Uint8Array<ArrayBuffer>;
  /** The stored content type, or `application/octet-stream`. */
  contentType: string;
}

const ARTIFACT_ID = /^art_[A-Za-z0-9]{1,64}$/;
/** Batch size of the parallel reads of the first load. */
const LOAD_BATCH = 64;

/** Artifact ids come from URLs; anything not shaped like one is simply unknown. */
export const isArtifactId = (value: string): boolean => ARTIFACT_ID.test(value);

export class ArtifactStore {
  readonly #storage: StorageDriver;
  readonly #definition: ArtifactsDefinition | undefined;
  readonly #log: EventSink & Pick<EventLogView, "length">;
  readonly #now: () => number;
  readonly #logger: HostLogger;
  readonly #max: number;
  /** Oldest-updated first. */
  readonly #records = new Map<string, ArtifactRecord>();
  /** The records in the list's order (newest-updated first), and where each id is in it, kept until the next change. */
  #ordered: { records: ArtifactRecord[]; at: Map<string, number> } | undefined;
  /** `JSON.stringify([kind, key])` → id. */
  readonly #byKey = new Map<string, string>();
  #loaded: Promise<void> | undefined;
  #tail: Promise<unknown> = Promise.resolve();

  constructor(options: ArtifactStoreOptions) {
    this.#storage = options.storage;
    this.#definition = options.definition;
    this.#log = options.log;
    this.#now = options.now;
    this.#logger = options.logger;
    const max = options.definition?.max ?? DEFAULT_MAX_ARTIFACTS;
    if (!Number.isInteger(max) || max < 1) throw createError("artifacts", `max must be a positive integer, got ${String(max)}`);
    this.#max = max;
  }

  /**
   * Validates, stores and announces an artifact. Re-tagging an existing (kind, key) replaces the
   * record (same id and `createdAt`) and keeps its payload unless `contents` is given. Throws
   * `HTTPError` 400 `invalid_request` for input the declaration does not accept.
   */
  async tag(input: TagInput, attribution: TagAttribution): Promise<ArtifactRecord> {
    const tag = await normalizeTag(input, this.#definition);
    const sessionId = attribution.sessionId ?? input.sessionId;
    if (sessionId === undefined) {
      throw badRequest("sessionId is required to tag an artifact outside a session (channels, schedules, reminders)");
    }
    // Bound facades come from a live session; a sessionId given by host code is checked, so an
    // event is never appended to a log no session owns.
    if (attribution.sessionId === undefined) await this.#assertSession(sessionId);
    const record = await this.#serial(() => this.#put(tag, sessionId, attribution));
    await this.#log.append(sessionId, [
      {
        type: "artifact.tagged",
        ...(record.turnId === undefined ? {} : { turnId: record.turnId }),
        data: { artifact: eventView(record) },
      },
    ]);
    return structuredClone(record);
  }

  /** Newest-updated first. */
  async list(filter: ArtifactFilter = {}): Promise<ArtifactRecord[]> {
    await this.#load();
    const limit = filter.limit ?? Number.POSITIVE_INFINITY;
    const out: ArtifactRecord[] = [];
    const ordered = (this.#ordered ??= order(this.#records));
    const records = ordered.records;
    for (let i = filter.after ? firstAfter(ordered, filter.after) : 0; i < records.length && out.length < limit; i++) {
      const record = records[i]!;
      if (filter.kind !== undefined && record.kind !== filter.kind) continue;
      if (filter.sessionId !== undefined && record.sessionId !== filter.sessionId) continue;
      out.push(structuredClone(record));
    }
    return out;
  }

  async get(id: string): Promise<ArtifactRecord | undefined> {
    await this.#load();
    const record = this.#records.get(id);
    return record ? structuredClone(record) : undefined;
  }

  /** The payload, or undefined when the artifact is unknown or has none. */
  async content(id: string): Promise<ArtifactContent | undefined> {
    await this.#load();
    const record = this.#records.get(id);
    if (!record?.hasContent) return undefined;
    const raw = await this.#storage.get(contentKey(id));
    if (raw === undefined) return undefined;
    return { body: decodePayload(raw), contentType: record.contentType ?? "application/octet-stream" };
  }

  /**
   * The facade host code sees. Bound facades (tools, hooks) attribute to their session and turn;
   * unbound ones (channels, schedules, reminders) need `sessionId` in each tag input.
   */
  facade(bound?: { sessionId: string; turnId?: string }): ArtifactsFacade {
    const attribution: TagAttribution = bound
      ? { source: "host", sessionId: bound.sessionId, ...(bound.turnId === undefined ? {} : { turnId: bound.turnId }) }
      : { source: "host" };
    return {
      tag: (input) => this.tag(input, attribution),
      list: (filter) => this.list(filter),
    };
  }

  // --- internals ---

  async #put(tag: NormalizedTag, sessionId: string, attribution: TagAttribution): Promise<ArtifactRecord> {
    await this.#load();
    const mapKey = JSON.stringify([tag.kind, tag.key]);
    const existingId = this.#byKey.get(mapKey);
    const existing = existingId === undefined ? undefined : this.#records.get(existingId);
    const id = existing?.id ?? `art_${randomId(20)}`;
    const at = new Date(this.#now()).toISOString();
    const replacesContent = tag.contents !== undefined;
    const hasContent = replacesContent || (existing?.hasContent ?? false);
    const contentType = replacesContent ? tag.contentType : (tag.contentType ?? existing?.contentType);
    const record: ArtifactRecord = {
      id,
      kind: tag.kind,
      key: tag.key,
      title: tag.title,
      data: tag.data,
      source: attribution.source,
      sessionId,
      ...(attribution.turnId === undefined ? {} : { turnId: attribution.turnId }),
      ...(hasContent && contentType !== undefined ? { contentType } : {}),
      hasContent,
      createdAt: existing?.createdAt ?? at,
      updatedAt: at,
    };
    // Payload first: a record that says hasContent never points at a missing payload.
    if (tag.contents !== undefined) await this.#storage.set(contentKey(id), encodePayload(tag.contents));
    await this.#storage.set(recordKey(id), JSON.stringify(record));
    this.#records.delete(id);
    this.#records.set(id, record);
    this.#ordered = undefined;
    this.#byKey.set(mapKey, id);
    await this.#evict();
    return record;
  }

  /** Evicts oldest-updated records until the cap holds (docs/guide/http-api.md "Limits": on insert past the cap). */
  async #evict(): Promise<void> {
    while (this.#records.size > this.#max) {
      const oldest = this.#records.values().next().value;
      if (!oldest) return;
      this.#forget(oldest);
      try {
        if (oldest.hasContent) await this.#storage.delete(contentKey(oldest.id));
        await this.#storage.delete(recordKey(oldest.id));
      } catch (error) {
        // Left in storage, it comes back on the next load and is evicted again then.
        this.#logger.error(`[artifacts] could not delete evicted artifact ${oldest.id}`, error);
      }
    }
  }

  #forget(record: ArtifactRecord): void {
    this.#records.delete(record.id);
    this.#ordered = undefined;
    const mapKey = JSON.stringify([record.kind, record.key]);
    if (this.#byKey.get(mapKey) === record.id) this.#byKey.delete(mapKey);
  }

  #load(): Promise<void> {
    this.#loaded ??= this.#readAll().catch((error: unknown) => {
      this.#loaded = undefined;
      throw error;
    });
    return this.#loaded;
  }

  async #readAll(): Promise<void> {
    const ids = (await this.#storage.list(ARTIFACTS_PREFIX))
      .map((key) => key.slice(ARTIFACTS_PREFIX.length))
      .filter((id) => isArtifactId(id));
    const records: ArtifactRecord[] = [];
    for (let i = 0; i < ids.length; i += LOAD_BATCH) {
      const batch = ids.slice(i, i + LOAD_BATCH);
      const raws = await Promise.all(batch.map((id) => this.#storage.get(recordKey(id))));
      raws.forEach((raw, j) => {
        if (raw === undefined) return;
        try {
          records.push(JSON.parse(raw) as ArtifactRecord);
        } catch {
          this.#logger.warn(`[artifacts] skipped unreadable artifact record ${batch[j]}`);
        }
      });
    }
    records.sort((a, b) => (a.updatedAt < b.updatedAt ? -1 : a.updatedAt > b.updatedAt ? 1 : 0));
    for (const record of records) {
      this.#records.set(record.id, record);
      this.#byKey.set(JSON.stringify([record.kind, record.key]), record.id);
    }
  }

  async #assertSession(sessionId: string): Promise<void> {
    // Every session's stream starts with session.started, so an empty log means no such session.
    if (!isSessionId(sessionId) || (await this.#log.length(sessionId)) === 0) {
      throw badRequest(`cannot tag an artifact for unknown session ${JSON.stringify(String(sessionId).slice(0, 80))}`);
    }
  }

  /** Tags run one at a time, so the in-memory index and storage move together. */
  #serial<T>(work: () => Promise<T>): Promise<T> {
    const result = this.#tail.then(work, work);
    this.#tail = result.catch(() => {});
    return result;
  }
}

/** The record as events carry it (docs/design/tools.md "Artifacts": id, kind, key, title, data, source). */
export function eventView(record: ArtifactRecord): ArtifactEventView {
  return { id: record.id, kind: record.kind, key: record.key, title: record.title, data: record.data, source: record.source };
}

/** The records newest-updated first: the reverse of update order, which holds even when the clock stands still. */
function order(byUpdate: Map<string, ArtifactRecord>): { records: ArtifactRecord[]; at: Map<string, number> } {
  const records = [...byUpdate.values()].reverse();
  return { records, at: new Map(records.map((record, i) => [record.id, i])) };
}

/**
 * Where the page after `after` starts: just past that record while it is still where it was;
 * when it has since been re-tagged or evicted, at the first record updated before it.
 */
function firstAfter(ordered: { records: ArtifactRecord[]; at: Map<string, number> }, after: ArtifactPosition): number {
  const i = ordered.at.get(after.id);
  if (i !== undefined && ordered.records[i]!.updatedAt === after.updatedAt) return i + 1;
  let low = 0;
  let high = ordered.records.length;
  while (low < high) {
    const mid = (low + high) >> 1;
    if (ordered.records[mid]!.updatedAt >= after.updatedAt) low = mid + 1;
    else high = mid;
  }
  return low;
}
