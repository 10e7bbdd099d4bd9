/**
 * The storage driver for many host processes on one Postgres database: records, log lines and
 * leases in tables of their own schema, which the driver creates and migrates; each commit one
 * call of a PL/pgSQL function (one transaction, compare-and-set and expected indexes included);
 * leases on the database's clock; live follow across processes through `LISTEN/NOTIFY`. See
 * docs/design/storage.md, "Postgres driver", and docs/guide/storage.md for a production set-up.
 *
 * @example
 * import { createPostgresStorage } from "agent-serve/storage/postgres";
 * const storage = createPostgresStorage({ url: "postgres://app:secret@db.internal/app" });
 * await storage.commit({ records: [{ key: "sessions/s1/record", value: "{}" }], appends: [{ log: "sessions/s1/events", lines: ["{}"] }] });
 * await storage.close();
 * @module
 */
import type postgres from "postgres";
import { assertBatch, assertKey, assertLeaseOwner, assertPage, assertPrefix, type CommitBatch, type StorageDriver } from "../../src/base/storage/types.ts";
import { type CommitArgs, commitResult, toCommitArgs, toGroupArgs } from "./commit.ts";
import { CommitQueue, type Outcome } from "./commit-queue.ts";
import { PostgresConnection } from "./connection.ts";
import { PostgresFollowers } from "./follow.ts";
import { assertSchemaName, channelOf } from "./schema.ts";

export interface PostgresStorageOptions {
  /** `postgres://[user:pass@]host[:port]/database[?sslmode=require]` */
  url: string;
  /** The schema holding the driver's tables, created on first use. @default "agent_serve" */
  schema?: string;
  /**
   * Which store of the schema this is: several hosts (or the agents of one multi-agent host)
   * share one schema without seeing each other's data. @default "default"
   */
  namespace?: string;
  /** Further `postgres` client options (TLS, `prepare: false` behind a transaction pooler). */
  postgres?: postgres.Options<Record<string, postgres.PostgresType>>;
}

/** Lines per batch yielded by `read`, the same bound every driver uses. */
const READ_BATCH = 1024;

/**
 * Creates the driver. The client is loaded, connected and the schema migrated in the
 * background; commands made meanwhile wait for it, in order. Commands that cannot reach the
 * database reject with `StorageUnavailableError`; the next command connects again.
 */
export function createPostgresStorage(options: PostgresStorageOptions): StorageDriver {
  const schema = options.schema ?? "agent_serve";
  assertSchemaName(schema);
  const ns = options.namespace ?? "default";
  if (typeof ns !== "string" || ns === "" || ns.length > 200) throw new Error("[agent-serve] [storage] postgres namespace must be a non-empty string");
  const conn = new PostgresConnection({ url: options.url, schema, ...(options.postgres ? { options: options.postgres } : {}) }, describe(options.url));
  const channel = channelOf(schema);
  /** Names this driver's commits in their notifications. */
  const origin = crypto.randomUUID();
  const followers = new PostgresFollowers(conn, { namespace: ns, channel, schema, origin });
  const pending = new Set<Promise<unknown>>();
  let closed = false;

  /** A write: sent in call order, and waited for by `close`. */
  function write<T>(command: Parameters<PostgresConnection["send"]>[0]): Promise<T> {
    if (closed) return Promise.reject(new Error("[agent-serve] [storage] the postgres store is closed"));
    const sent = conn.send(command, true) as Promise<T>;
    pending.add(sent);
    const forget = () => pending.delete(sent);
    sent.then(forget, forget);
    return sent;
  }

  /** One commit alone: one call of the commit function. */
  async function sendOne(args: CommitArgs): Promise<Outcome> {
    try {
      const [row] = await conn.send<Array<{ firsts: string[] }>>(
        (sql) => sql`SELECT ${sql(schema)}.commit_batch(
          ${ns}, ${channel}, ${origin},
          ${args.keys}::text[], ${args.values}::text[], ${args.ops}::text[], ${args.checks}::text[], ${args.expected}::text[], ${args.positions}::int4[],
          ${args.heads}::text[], ${args.totals}::int8[],
          ${args.appendHeads}::int4[], ${args.expectedIndexes}::int8[], ${args.counts}::int4[], ${args.lines}::text[]
        ) AS firsts`,
        true,
      );
      return { firsts: (row?.firsts ?? []).map(Number) };
    } catch (error) {
      return { error };
    }
  }
  const queue = new CommitQueue(async (group) => {
    if (group.length === 1) return [await sendOne(group[0]!)];
    const { records, heads, appends, lines, all } = toGroupArgs(group);
    const [row] = await conn.send<Array<{ results: Array<string[] | { code: string; message: string; detail: string }> }>>(
      (sql) => sql`SELECT ${sql(schema)}.commit_group(
        ${ns}, ${channel}, ${origin}, ${records}::int4[], ${heads}::int4[], ${appends}::int4[], ${lines}::int4[],
        ${all.keys}::text[], ${all.values}::text[], ${all.ops}::text[], ${all.checks}::text[], ${all.expected}::text[], ${all.positions}::int4[],
        ${all.heads}::text[], ${all.totals}::int8[],
        ${all.appendHeads}::int4[], ${all.expectedIndexes}::int8[], ${all.counts}::int4[], ${all.lines}::text[]
      ) AS results`,
      true,
    );
    return (row?.results ?? []).map((result) => (Array.isArray(result) ? { firsts: result.map(Number) } : { error: result }));
  });
  conn.beforeSend = () => queue.flush();

  function commit(batch: CommitBatch): Promise<number[]> {
    if (closed) return Promise.reject(new Error("[agent-serve] [storage] the postgres store is closed"));
    const done = queue.add(toCommitArgs(batch)).then((outcome) => {
      if ("error" in outcome) throw commitResult(batch, outcome.error);
      // Followers in this process hear at once; the notification brings the same lines to every
      // other process (this one skips its own).
      (batch.appends ?? []).forEach(({ log, lines }, i) => followers.publish(log, outcome.firsts[i]!, lines));
      return outcome.firsts;
    });
    pending.add(done);
    const forget = () => pending.delete(done);
    done.then(forget, forget);
    return done;
  }

  const length = (log: string) =>
    conn
      .send<Array<{ length: string }>>((sql) => sql`SELECT length FROM ${sql(schema)}.logs WHERE ns = ${ns} AND log = ${log}`)
      .then(([row]) => Number(row?.length ?? 0));

  return {
    name: "postgres",
    capabilities: { durable: true, follow: "shared", sharedLeases: true },

    async commit(batch) {
      assertBatch(batch);
      return commit(copyBatch(batch));
    },
    follow(log, listener) {
      assertKey(log);
      return followers.add(log, listener);
    },
    async entries(prefix) {
      assertPrefix(prefix);
      const rows = await conn.send<Array<{ key: string; value: string }>>(
        (sql) => sql`SELECT key, value FROM ${sql(schema)}.records WHERE ns = ${ns} AND key >= ${prefix} AND key < ${upper(prefix)} ORDER BY key`,
      );
      return rows.map((row): [string, string] => [row.key, row.value]);
    },
    async entriesPage(prefix, page) {
      assertPrefix(prefix);
      assertPage(page);
      // One lower bound, the tighter of the prefix's start and the page's start.
      const after = page.after !== undefined && page.after >= prefix ? page.after : undefined;
      const rows = await conn.send<Array<{ key: string; value: string }>>((sql) =>
        after === undefined
          ? sql`SELECT key, value FROM ${sql(schema)}.records WHERE ns = ${ns} AND key >= ${prefix} AND key < ${upper(prefix)} ORDER BY key LIMIT ${page.limit}`
          : sql`SELECT key, value FROM ${sql(schema)}.records WHERE ns = ${ns} AND key > ${after} AND key < ${upper(prefix)} ORDER BY key LIMIT ${page.limit}`,
      );
      return rows.map((row): [string, string] => [row.key, row.value]);
    },

    async get(key) {
      assertKey(key);
      const [row] = await conn.send<Array<{ value: string }>>((sql) => sql`SELECT value FROM ${sql(schema)}.records WHERE ns = ${ns} AND key = ${key}`);
      return row?.value;
    },
    async set(key, value) {
      const batch = { records: [{ key, value }] };
      assertBatch(batch);
      await commit(batch);
    },
    async delete(key) {
      assertKey(key);
      await commit({ records: [{ key, value: null }] });
    },
    async list(prefix) {
      assertPrefix(prefix);
      const rows = await conn.send<Array<{ key: string }>>(
        (sql) => sql`SELECT key FROM ${sql(schema)}.records WHERE ns = ${ns} AND key >= ${prefix} AND key < ${upper(prefix)} ORDER BY key`,
      );
      return rows.map((row) => row.key);
    },

    async append(log, lines, expectedIndex) {
      const batch = { appends: [{ log, lines: [...lines], ...(expectedIndex === undefined ? {} : { expectedIndex }) }] };
      assertBatch(batch);
      const [first] = await commit(batch);
      return first!;
    },
    async length(log) {
      assertKey(log);
      return length(log);
    },
    read(log, from = 0, to) {
      // The end is asked for now, not at the first `next()`: later appends are not part of this read.
      let end: Promise<number>;
      try {
        assertKey(log);
        end = to === undefined ? length(log) : Promise.resolve(to);
      } catch (error) {
        end = Promise.reject(error);
      }
      end.catch(() => {});
      return batches(conn, schema, ns, log, Math.max(0, from), end);
    },
    async deleteLog(log) {
      assertKey(log);
      await write((sql) => sql`SELECT ${sql(schema)}.delete_log(${ns}, ${log})`);
    },
    async hasLog(log) {
      assertKey(log);
      const rows = await conn.send<unknown[]>((sql) => sql`SELECT 1 FROM ${sql(schema)}.logs WHERE ns = ${ns} AND log = ${log}`);
      return rows.length > 0;
    },

    async acquireLease(key, owner, ttlMs) {
      assertKey(key);
      assertLeaseOwner(owner);
      const ttl = Math.max(0, Math.ceil(ttlMs));
      // The expiry is the database's clock, so processes need no synchronised clocks.
      const rows = await write<unknown[]>(
        (sql) => sql`
          INSERT INTO ${sql(schema)}.leases AS l (ns, key, owner, expires_at)
          VALUES (${ns}, ${key}, ${owner}, clock_timestamp() + ${ttl} * interval '1 millisecond')
          ON CONFLICT (ns, key) DO UPDATE SET owner = EXCLUDED.owner, expires_at = EXCLUDED.expires_at
          WHERE l.owner = EXCLUDED.owner OR l.expires_at <= clock_timestamp()
          RETURNING 1`,
      );
      return rows.length === 1;
    },
    async releaseLease(key, owner) {
      assertKey(key);
      await write((sql) => sql`DELETE FROM ${sql(schema)}.leases WHERE ns = ${ns} AND key = ${key} AND owner = ${owner}`);
    },

    async close() {
      if (closed) return;
      closed = true;
      await followers.close();
      await Promise.allSettled(pending);
      await conn.close();
    },
  };
}

// --- internals ---

/** `host:port/database` of a URL for messages, without credentials. */
function describe(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.hostname}:${parsed.port || "5432"}${parsed.pathname}`;
  } catch {
    return "server";
  }
}

/** The first string after every key starting with `prefix` (keys are ASCII below `\x7f`). */
function upper(prefix: string): string {
  return `${prefix}\u007f`;
}

/** The commit keeps its own copy: a caller mutating its arrays after the call changes nothing. */
function copyBatch(batch: CommitBatch): CommitBatch {
  return {
    ...(batch.records ? { records: batch.records.map((write) => ({ ...write })) } : {}),
    ...(batch.appends ? { appends: batch.appends.map((append) => ({ ...append, lines: [...append.lines] })) } : {}),
  };
}

async function* batches(conn: PostgresConnection, schema: string, ns: string, log: string, from: number, end: Promise<number>): AsyncGenerator<string[]> {
  const stop = await end;
  for (let start = from; start < stop; start += READ_BATCH) {
    const last = Math.min(start + READ_BATCH, stop);
    const rows = await conn.send<Array<{ line: string }>>(
      (sql) => sql`SELECT line FROM ${sql(schema)}.lines WHERE ns = ${ns} AND log = ${log} AND idx >= ${start} AND idx < ${last} ORDER BY idx`,
    );
    // Past the end of the log, or a log deleted meanwhile: the read ends early.
    if (rows.length === 0) return;
    yield rows.map((row) => row.line);
    if (rows.length < last - start) return;
  }
}
