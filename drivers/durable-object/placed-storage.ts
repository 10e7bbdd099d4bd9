/**
 * The storage driver of every host on Workers (docs/design/cloudflare.md "Storage"): each name
 * lives in one Durable Object's database (./homes.ts: a session's records, logs and turn
 * lease in its session object, everything shared in the coordinator). Names at home here are
 * served by this object's own driver, others through the storage protocol to their object. A
 * commit stays within one object, except the session object's own commits that also write the
 * coordinator (creates, token rotations, removals, every write of its record, which the
 * coordinator mirrors for the session listing): those go through the outbox (./session-mirror.ts).
 * @module
 */
import {
  assertBatch,
  assertKey,
  assertPrefix,
  type CommitBatch,
  type LogAppend,
  type RecordWrite,
  type StorageDriver,
} from "../../src/base/storage/types.ts";
import { homeName, homeOf, leaseHomeOf, prefixHomeOf, sameHome, sessionRecordOf, type Home } from "./homes.ts";
import { createRemoteStorage, type RemoteStorage } from "./remote-storage.ts";
import type { StorageTransport } from "./storage-wire.ts";
import { MirrorOutbox } from "./session-mirror.ts";

export type { Home } from "./homes.ts";

/** This object's database for one namespace: `createDurableObjectStorage(ctx.storage, { namespace })`. */
export type LocalStorage = StorageDriver & { leaseHolder(key: string): Promise<string | undefined> };

export interface PlacedStorageOptions {
  /** The agent's slug: each agent has its own namespace in every object's database. */
  namespace: string;
  /** This object: the coordinator, or the session object that holds that one session. */
  here: Home;
  /** This object's database for the namespace; shared with its storage endpoint, so never closed here. */
  local: LocalStorage;
  /** Reaches another object's storage endpoint. */
  transport(home: Home): StorageTransport;
  /** Where a push the coordinator did not take is reported. @default console.warn */
  logger?: { warn(message: string, fields?: Record<string, unknown>): void };
}

export type PlacedStorage = StorageDriver & {
  /** Who holds the lease now, asked in the lease's home. */
  leaseHolder(key: string): Promise<string | undefined>;
  /** Pushes the session's pending coordinator writes; rejects when the coordinator cannot take them. */
  flushMirror(): Promise<void>;
};

/** A session object's driver pushes what an earlier instance left in its outbox before it resolves. */
export async function createPlacedStorage(options: PlacedStorageOptions): Promise<PlacedStorage> {
  const { namespace, here, local } = options;
  const warn = (message: string, fields?: Record<string, unknown>): void =>
    options.logger ? options.logger.warn(message, fields) : console.warn(message, fields ?? {});
  const remotes = new Map<string, RemoteStorage>();
  const at = (home: Home): LocalStorage | RemoteStorage => {
    if (sameHome(home, here)) return local;
    let remote = remotes.get(homeName(home));
    if (!remote) remotes.set(homeName(home), (remote = createRemoteStorage(options.transport(home), namespace)));
    return remote;
  };
  const outbox =
    here === "coordinator"
      ? undefined
      : await MirrorOutbox.open({ session: here.session, local, coordinator: () => at("coordinator") as RemoteStorage, warn });
  let closed = false;
  /** Commits resolve in call order, as on every other driver, though an outbox commit waits for its push. */
  let previous: Promise<unknown> = Promise.resolve();

  const guard = <T>(check: () => void, run: () => Promise<T>): Promise<T> => {
    try {
      if (closed) throw new Error("[agent-serve] [storage] the placed driver is closed");
      check();
      return run();
    } catch (error) {
      return Promise.reject(error);
    }
  };
  const inCallOrder = <T>(promise: Promise<T>): Promise<T> => {
    promise.catch(() => {}); // handled by the caller, through the chained promise
    const result = previous.then(() => promise);
    previous = result.catch(() => {});
    return result;
  };
  const commit = (batch: CommitBatch): Promise<number[]> =>
    guard(
      () => assertBatch(batch),
      () => inCallOrder(route(batch)),
    );

  /** Sends the batch to its home, or through the outbox; synchronous up to the send, so call order holds. */
  const route = (batch: CommitBatch): Promise<number[]> => {
    const parts = new Map<string, { home: Home; records: RecordWrite[]; appends: LogAppend[] }>();
    const part = (home: Home) => {
      let found = parts.get(homeName(home));
      if (!found) parts.set(homeName(home), (found = { home, records: [], appends: [] }));
      return found;
    };
    for (const write of batch.records ?? []) {
      part(homeOf(write.key)).records.push(write);
      if (sessionRecordOf(write.key) !== undefined) part("coordinator").records.push({ key: write.key, value: write.value });
    }
    for (const append of batch.appends ?? []) part(homeOf(append.log)).appends.push(append);
    const [only] = parts.values();
    if (parts.size <= 1) return at(only?.home ?? here).commit(batch);
    const own = parts.get(homeName(here));
    const coordinator = parts.get("coordinator");
    if (outbox && parts.size === 2 && own && coordinator) {
      const checked = coordinator.records.find((write) => write.expected !== undefined);
      if (checked) throw new Error(`[agent-serve] [storage] a commit across objects cannot compare-and-set the coordinator's ${checked.key}`);
      const [append] = coordinator.appends;
      if (append) throw new Error(`[agent-serve] [storage] a commit across objects cannot append to the coordinator's log ${append.log}`);
      return outbox.commit({ records: own.records, appends: own.appends }, coordinator.records);
    }
    const spans = [...parts.values()].map((p) => `${homeName(p.home)} (${[...p.records.map((w) => w.key), ...p.appends.map((a) => a.log)].join(", ")})`);
    throw new Error(`[agent-serve] [storage] one commit from ${homeName(here)} cannot span ${spans.join(" and ")}`);
  };

  return {
    name: "durable-object",
    capabilities: { durable: true, follow: "shared", sharedLeases: true },
    commit,
    follow(log, listener) {
      assertKey(log);
      return at(homeOf(log)).follow(log, listener);
    },
    entries: (prefix) => guard(() => assertPrefix(prefix), () => listing(prefix).entries(prefix)),
    entriesPage: (prefix, page) => guard(() => assertPrefix(prefix), () => listing(prefix).entriesPage(prefix, page)),
    list: (prefix) => guard(() => assertPrefix(prefix), () => listing(prefix).list(prefix)),
    get: (key) => guard(() => assertKey(key), () => at(homeOf(key)).get(key)),
    set: (key, value) => commit({ records: [{ key, value }] }).then(() => {}),
    delete: (key) => commit({ records: [{ key, value: null }] }).then(() => {}),
    append: (log, lines, expectedIndex) =>
      commit({ appends: [{ log, lines, ...(expectedIndex === undefined ? {} : { expectedIndex }) }] }).then((firsts) => firsts[0]!),
    length: (log) => guard(() => assertKey(log), () => at(homeOf(log)).length(log)),
    read(log, from, to) {
      try {
        assertKey(log);
      } catch (error) {
        return (async function* () {
          yield* [];
          throw error;
        })();
      }
      return at(homeOf(log)).read(log, from, to);
    },
    deleteLog: (log) => guard(() => assertKey(log), () => at(homeOf(log)).deleteLog(log)),
    hasLog: (log) => guard(() => assertKey(log), () => at(homeOf(log)).hasLog(log)),
    acquireLease: (key, owner, ttlMs) => guard(() => assertKey(key), () => at(leaseHomeOf(key)).acquireLease(key, owner, ttlMs)),
    releaseLease: (key, owner) => guard(() => assertKey(key), () => at(leaseHomeOf(key)).releaseLease(key, owner)),
    leaseHolder: (key) => guard(() => assertKey(key), () => at(leaseHomeOf(key)).leaseHolder(key)),
    flushMirror: () => guard(() => {}, () => outbox?.flush() ?? Promise.resolve()),
    async close() {
      if (closed) return;
      closed = true;
      await previous;
      await outbox?.settled();
      await Promise.all([...remotes.values()].map((remote) => remote.close()));
    },
  };

  function listing(prefix: string): StorageDriver {
    const home = prefixHomeOf(prefix);
    return home === "here" ? local : at(home);
  }
}
