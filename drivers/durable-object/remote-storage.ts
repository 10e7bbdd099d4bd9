/**
 * A storage driver whose database lives in another Durable Object, reached
 * through ./storage-wire.ts. Operations go out in call order, queued ones together in one request,
 * one request at a time, so every ordering rule of the port holds as it does in one process; a
 * `follow` holds later operations back until the far side has subscribed.
 * @module
 */
import { assertBatch, assertKey, assertLines, assertPage, assertPrefix, type StorageDriver } from "../../src/base/storage/types.ts";
import { followRemote } from "./remote-follow.ts";
import type { MirrorWrites } from "./session-mirror.ts";
import { fromWireError, type StorageTransport, type WireOp, type WireResult } from "./storage-wire.ts";

const READ_BATCH = 1024;
/** Operations per request: enough to carry a busy turn's writes, small enough for one answer. */
const MAX_OPS = 256;

interface Pending {
  op: WireOp;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/**
 * The remote driver, plus who holds a lease now (recovery asks, docs/design/cloudflare.md
 * "Recovery") and a session object's outbox push to the coordinator (./session-mirror.ts).
 */
export type RemoteStorage = StorageDriver & {
  leaseHolder(key: string): Promise<string | undefined>;
  /** Resolves true when the far side applied the writes, false when it had `seq` or a newer one. */
  mirror(session: string, seq: number, writes: MirrorWrites): Promise<boolean>;
};

export function createRemoteStorage(transport: StorageTransport, namespace: string): RemoteStorage {
  let queue: Pending[] = [];
  let sending: Promise<void> | undefined;
  /** Resolves once every follow asked for so far is subscribed on the far side. */
  let subscribed: Promise<void> = Promise.resolve();
  /** The open follows' unsubscribe functions. */
  const follows = new Set<() => void>();
  let followCount = 0;
  let closed = false;

  const pump = async (): Promise<void> => {
    while (queue.length > 0) {
      await subscribed;
      const batch = queue.slice(0, MAX_OPS);
      queue = queue.slice(batch.length);
      try {
        const response = await transport({ namespace, ops: batch.map((pending) => pending.op) });
        if (!response.ok) throw new Error(`[agent-serve] [storage] the storage endpoint answered ${response.status}: ${await response.text()}`);
        const results = (await response.json()) as WireResult[];
        batch.forEach((pending, i) => {
          const result = results[i];
          if (result?.ok) pending.resolve(result.value);
          else pending.reject(result ? fromWireError(result.error) : new Error("[agent-serve] [storage] no answer for an operation"));
        });
      } catch (error) {
        for (const pending of batch) pending.reject(error);
      }
    }
    sending = undefined;
  };
  const call = <T>(op: WireOp): Promise<T> => {
    if (closed) return Promise.reject(new Error("[agent-serve] [storage] the remote driver is closed"));
    const promise = new Promise<T>((resolve, reject) => queue.push({ op, resolve: resolve as (value: unknown) => void, reject }));
    sending ??= pump();
    return promise;
  };
  const guard = <T>(check: () => void, run: () => Promise<T>): Promise<T> => {
    try {
      check();
    } catch (error) {
      return Promise.reject(error);
    }
    return run();
  };

  const driver: RemoteStorage = {
    name: "durable-object",
    capabilities: { durable: true, follow: "shared", sharedLeases: true },
    commit: (batch) => guard(() => assertBatch(batch), () => call({ op: "commit", batch })),
    follow(log, listener) {
      assertKey(log);
      const abort = new AbortController();
      const id = `f${++followCount}`;
      let ready!: () => void;
      const isReady = new Promise<void>((resolve) => (ready = resolve));
      subscribed = subscribed.then(() => isReady);
      void followRemote({
        transport,
        namespace,
        log,
        id,
        listener,
        signal: abort.signal,
        readFrom: (from) => driver.read(log, from),
        onSubscribed: ready,
      });
      const unsubscribe = (): void => {
        if (abort.signal.aborted) return;
        follows.delete(unsubscribe);
        abort.abort();
        // Ends it on the far side too: a cancelled response body may go unnoticed there.
        if (!closed) call({ op: "unfollow", id }).catch(() => {});
      };
      follows.add(unsubscribe);
      return unsubscribe;
    },
    entries: (prefix) => guard(() => assertPrefix(prefix), () => call({ op: "entries", prefix })),
    entriesPage: (prefix, page) =>
      guard(
        () => {
          assertPrefix(prefix);
          assertPage(page);
        },
        () => call({ op: "entriesPage", prefix, ...(page.after === undefined ? {} : { after: page.after }), limit: page.limit }),
      ),
    get: (key) => guard(() => assertKey(key), () => call<string | null | undefined>({ op: "get", key }).then((value) => value ?? undefined)),
    set: (key, value) => guard(() => assertKey(key), () => call<unknown>({ op: "commit", batch: { records: [{ key, value }] } }).then(() => {})),
    delete: (key) => guard(() => assertKey(key), () => call<unknown>({ op: "commit", batch: { records: [{ key, value: null }] } }).then(() => {})),
    list: (prefix) => guard(() => assertPrefix(prefix), () => call({ op: "list", prefix })),
    append: (log, lines, expectedIndex) =>
      guard(
        () => {
          assertKey(log);
          assertLines(lines);
        },
        () =>
          call<number[]>({ op: "commit", batch: { appends: [{ log, lines, ...(expectedIndex === undefined ? {} : { expectedIndex }) }] } }).then(
            (firsts) => firsts[0]!,
          ),
      ),
    length: (log) => guard(() => assertKey(log), () => call({ op: "length", key: log })),
    read(log, from = 0, to) {
      // The first page is asked for now, so the default end is the length when read is called.
      const first = guard(
        () => assertKey(log),
        () => call<{ lines: string[]; end: number }>({ op: "readPage", key: log, from, ...(to === undefined ? {} : { to }), limit: READ_BATCH }),
      );
      first.catch(() => {});
      return (async function* () {
        let page = await first;
        let at = Math.max(0, from);
        for (;;) {
          if (page.lines.length === 0) return;
          yield page.lines;
          at += page.lines.length;
          if (at >= page.end || page.lines.length < READ_BATCH) return;
          page = await call({ op: "readPage", key: log, from: at, to: page.end, limit: READ_BATCH });
        }
      })();
    },
    deleteLog: (log) => guard(() => assertKey(log), () => call<unknown>({ op: "deleteLog", key: log }).then(() => {})),
    hasLog: (log) => guard(() => assertKey(log), () => call({ op: "hasLog", key: log })),
    acquireLease: (key, owner, ttlMs) => guard(() => assertKey(key), () => call({ op: "acquireLease", key, owner, ttlMs })),
    releaseLease: (key, owner) => guard(() => assertKey(key), () => call<unknown>({ op: "releaseLease", key, owner }).then(() => {})),
    leaseHolder: (key) => guard(() => assertKey(key), () => call<string | null | undefined>({ op: "leaseHolder", key }).then((owner) => owner ?? undefined)),
    mirror: (session, seq, writes) => guard(() => assertKey(session), () => call({ op: "mirror", session, seq, writes })),
    async close() {
      // Each unsubscribe removes itself; a Set visits the rest regardless.
      for (const unsubscribe of follows) unsubscribe();
      await sending;
      closed = true;
    },
  };
  return driver;
}
