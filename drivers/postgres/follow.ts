/**
 * Live follow across processes (docs/design/storage.md, "Postgres driver"): one `LISTEN` per
 * driver on its own connection; a commit notifies the log, the first index and the count, and
 * the lines themselves are read from the table from each log's lowest awaited index. Nothing is
 * lost when a notification is (the connection dropped, the server restarted): on every
 * (re)connection each followed log is read from where its followers stand. Each listener keeps
 * the index of the next line it expects and is given only lines that continue from there, so it
 * sees every line once, in index order, whichever process appended it.
 * @module
 */
import type { FollowListener } from "../../src/base/storage/types.ts";
import type { PostgresConnection, Sql } from "./connection.ts";

/** Lines per read: the same bound as a read's batch. */
const READ_COUNT = 1024;
/** Pause before listening again after the connection failed. */
const RETRY_MS = 200;

interface Listener {
  listener: FollowListener;
  /** The next index it expects; undefined until the log's length at subscription is known. */
  next: number | undefined;
  /** Lines may have been committed that neither its start position nor a notification covers. */
  unsure: boolean;
  /**
   * Lines this driver committed while the start was not known yet: the start query and a commit
   * answer in the order sent, but their callbacks can run in either order, so they wait here.
   */
  early: Array<[first: number, lines: readonly string[]]>;
}

interface Pull {
  running: boolean;
  again: boolean;
}

export interface FollowTarget {
  /** The store's namespace and the schema's channel. */
  namespace: string;
  channel: string;
  /** The schema holding the tables. */
  schema: string;
  /** This driver's name in the notifications of its own commits. */
  origin: string;
}

export class PostgresFollowers {
  readonly #main: PostgresConnection;
  readonly #target: FollowTarget;
  readonly #byLog = new Map<string, Set<Listener>>();
  readonly #pulls = new Map<string, Pull>();
  #listener: Promise<Sql> | undefined;
  /** `LISTEN` is in effect: every commit from now on is notified here. */
  #listening = false;
  /** A `#listen` loop is running (a failed connect may report its close more than once). */
  #retrying = false;
  #closed = false;

  constructor(main: PostgresConnection, target: FollowTarget) {
    this.#main = main;
    this.#target = target;
  }

  add(log: string, listener: FollowListener): () => void {
    const entry: Listener = { listener, next: undefined, unsure: !this.#listening, early: [] };
    let set = this.#byLog.get(log);
    if (!set) this.#byLog.set(log, (set = new Set()));
    set.add(entry);
    this.#ensureListening();
    // Sent now on the main connection, so it runs before any read or append the caller makes
    // after `follow` returns: the follower starts no later than what that read will see.
    this.#main
      .send<Array<{ length: number }>>((sql) => sql`SELECT coalesce((SELECT length FROM ${sql(this.#target.schema)}.logs WHERE ns = ${this.#target.namespace} AND log = ${log}), 0)::int8 AS length`)
      .then(
        ([row]) => (entry.next ??= Number(row?.length ?? 0)),
        // Unreachable: start from 0 once it is back rather than miss lines; the follower drops
        // what it has already seen by index.
        () => (entry.next ??= 0),
      )
      .then(() => {
        const early = entry.early;
        entry.early = [];
        for (const [first, lines] of early) this.#offer(log, set, entry, first, lines);
        if (entry.unsure || !this.#listening) this.#pull(log);
      });
    return () => {
      set.delete(entry);
      if (set.size === 0 && this.#byLog.get(log) === set) this.#byLog.delete(log);
    };
  }

  /** Lines this process committed: delivered at once to listeners they continue. */
  publish(log: string, first: number, lines: readonly string[]): void {
    const set = this.#byLog.get(log);
    if (!set || lines.length === 0) return;
    for (const entry of set) this.#offer(log, set, entry, first, lines);
  }

  /**
   * Lines committed here for one listener: held until its start is known, delivered if they
   * continue from it, and after a gap (a commit whose answer was lost with the connection
   * applied lines this process never heard of) the log is read from the table from its position.
   */
  #offer(log: string, set: Set<Listener>, entry: Listener, first: number, lines: readonly string[]): void {
    if (entry.next === undefined) entry.early.push([first, lines]);
    else if (first > entry.next) this.#pull(log);
    else deliver(entry, set, first, lines);
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#byLog.clear();
    const listener = await this.#listener?.catch(() => undefined);
    await listener?.end({ timeout: 0 });
  }

  #ensureListening(): void {
    if (this.#listener || this.#closed) return;
    this.#listener = this.#main.duplicate({
      notify: (_channel, payload) => this.#notified(payload),
      close: () => {
        this.#listening = false;
        for (const set of this.#byLog.values()) for (const entry of set) entry.unsure = true;
        if (!this.#closed) void this.#listen();
      },
    });
    this.#listener.catch(() => {});
    void this.#listen();
  }

  /** Issues `LISTEN` until it holds, then reads every followed log from where its followers stand. */
  async #listen(): Promise<void> {
    if (this.#retrying) return;
    this.#retrying = true;
    try {
      await this.#listenLoop();
    } finally {
      this.#retrying = false;
    }
  }

  async #listenLoop(): Promise<void> {
    while (!this.#closed && !this.#listening) {
      try {
        const sql = await this.#listener!;
        await sql.unsafe(`LISTEN "${this.#target.channel}"`);
        this.#listening = true;
      } catch {
        if (this.#closed) return;
        await sleep(RETRY_MS);
        continue;
      }
      for (const log of this.#byLog.keys()) this.#pull(log);
    }
  }

  #notified(payload: string): void {
    let parsed: unknown;
    try {
      parsed = JSON.parse(payload);
    } catch {
      return;
    }
    if (!Array.isArray(parsed) || parsed[0] !== this.#target.namespace) return;
    const [, log, first, count, origin] = parsed as [string, string, number, number, string];
    // Lines committed here reach this process's followers when the commit resolves (`publish`,
    // held in `early` until a follower's start is known); reading them again could beat that and
    // hand them over in other batches than they were committed in.
    if (origin === this.#target.origin) return;
    const set = this.#byLog.get(log);
    if (!set) return;
    let behind = false;
    for (const entry of set) {
      if (entry.next === undefined) entry.unsure = true;
      else if (entry.next < first + count) behind = true;
    }
    if (behind) this.#pull(log);
  }

  /** Reads `log` from its lowest awaited index to the end; one read per log at a time. */
  #pull(log: string): void {
    let pull = this.#pulls.get(log);
    if (!pull) this.#pulls.set(log, (pull = { running: false, again: false }));
    if (pull.running) {
      pull.again = true;
      return;
    }
    pull.running = true;
    void this.#drain(log, pull).finally(() => {
      pull.running = false;
      if (pull.again && !this.#closed) this.#pull(log);
      else if (this.#pulls.get(log) === pull) this.#pulls.delete(log);
    });
  }

  async #drain(log: string, pull: Pull): Promise<void> {
    for (;;) {
      pull.again = false;
      const set = this.#byLog.get(log);
      if (!set || this.#closed) return;
      let from: number | undefined;
      for (const entry of set) {
        entry.unsure = false;
        if (entry.next !== undefined && (from === undefined || entry.next < from)) from = entry.next;
      }
      if (from === undefined) return;
      let rows: Array<{ idx: string; line: string }>;
      try {
        const sql = await this.#listener!;
        rows = await sql<Array<{ idx: string; line: string }>>`
          SELECT idx, line FROM ${sql(this.#target.schema)}.lines
          WHERE ns = ${this.#target.namespace} AND log = ${log} AND idx >= ${from}
          ORDER BY idx LIMIT ${READ_COUNT}`;
      } catch {
        // The connection is down: its close handler listens again and reads every log then.
        return;
      }
      if (rows.length > 0) {
        const first = Number(rows[0]!.idx);
        const lines = rows.map((row) => row.line);
        for (const entry of set) deliver(entry, set, first, lines);
      }
      if (rows.length < READ_COUNT && !pull.again) return;
    }
  }
}

/** Gives `entry` the part of `lines` (starting at index `first`) it has not seen, if it continues from its position. */
function deliver(entry: Listener, set: Set<Listener>, first: number, lines: readonly string[]): void {
  const next = entry.next;
  if (next === undefined || first > next || first + lines.length <= next || !set.has(entry)) return;
  const fresh = first === next ? lines : lines.slice(next - first);
  entry.next = next + fresh.length;
  try {
    entry.listener(next, fresh);
  } catch {
    // A follower's failure is its own; the commit it follows has already happened.
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
