/**
 * Live follow across processes: one blocking `XREAD` per driver, on its own connection, over the
 * streams of every followed log (docs/design/storage.md, "Redis driver"). Each listener keeps
 * the index of the next line it expects and is given only lines that continue from there, so it
 * sees every line once, in index order, whichever process appended it.
 * @module
 */
import type { FollowListener } from "../../src/base/storage/types.ts";
import type { RedisConnection } from "./connection.ts";
import { entryId, indexOf, type KeyLayout } from "./scripts.ts";

/** Lines per `XREAD` per stream: the same bound as a read's batch. */
const READ_COUNT = 1024;
/**
 * Longest a blocking read waits before it looks at the followed logs again. A new follower wakes
 * it at once (`CLIENT UNBLOCK`); this only bounds the rare wake that reaches Redis first.
 */
const BLOCK_MS = 1_000;
/** Pause before retrying after the blocking connection failed (it reconnects meanwhile). */
const RETRY_MS = 200;

interface Listener {
  listener: FollowListener;
  /** The next index it expects; undefined until the log's length at subscription is known. */
  next: number | undefined;
}

export class RedisFollowers {
  readonly #main: RedisConnection;
  readonly #layout: KeyLayout;
  readonly #byLog = new Map<string, Set<Listener>>();
  #blocker: RedisConnection | undefined;
  #blockerId: Promise<number> | undefined;
  #running = false;
  /** Bumped when the set of followed positions changes; a read started before it is stale. */
  #generation = 0;
  #reading: number | undefined;
  #closed = false;

  constructor(main: RedisConnection, layout: KeyLayout) {
    this.#main = main;
    this.#layout = layout;
  }

  add(log: string, listener: FollowListener): () => void {
    const entry: Listener = { listener, next: undefined };
    let set = this.#byLog.get(log);
    if (!set) this.#byLog.set(log, (set = new Set()));
    set.add(entry);
    // Sent now on the main connection, so it runs before any read or append the caller makes
    // after `follow` returns: the follower starts no later than what that read will see.
    this.#main
      .send((client) => client.xlen(this.#layout.log(log)))
      .then(
        (length) => {
          entry.next ??= length;
          this.#changed();
        },
        () => {
          // Redis is unreachable: start from 0 once it is back rather than miss lines; the
          // follower drops what it has already seen by index.
          entry.next ??= 0;
          this.#changed();
        },
      );
    return () => {
      set.delete(entry);
      if (set.size === 0 && this.#byLog.get(log) === set) this.#byLog.delete(log);
    };
  }

  /** Lines this process committed: delivered at once to listeners they continue. */
  publish(log: string, first: number, lines: readonly string[]): void {
    const set = this.#byLog.get(log);
    if (!set || lines.length === 0) return;
    for (const entry of set) deliver(entry, set, first, lines);
  }

  close(): Promise<void> {
    this.#closed = true;
    this.#byLog.clear();
    // A blocked XREAD would make `QUIT` wait: drop the socket instead.
    return this.#blocker?.close("disconnect") ?? Promise.resolve();
  }

  #changed(): void {
    this.#generation++;
    if (this.#closed) return;
    if (!this.#running) {
      this.#running = true;
      void this.#loop();
    } else if (this.#reading !== undefined) void this.#wake(this.#reading);
  }

  /** Interrupts a blocked read that started before the latest change, so it rereads positions. */
  async #wake(generation: number): Promise<void> {
    for (let attempt = 0; attempt < 20 && this.#reading === generation && !this.#closed; attempt++) {
      const id = await this.#blockerId?.catch(() => undefined);
      if (id === undefined) return;
      const unblocked = await this.#main.send((client) => client.client("UNBLOCK", id)).catch(() => 0);
      if (unblocked === 1) return;
      // The XREAD has not reached Redis yet: try again shortly.
      await sleep(5);
    }
  }

  async #loop(): Promise<void> {
    while (!this.#closed) {
      const streams = this.#positions();
      if (streams.length === 0) break;
      if (!this.#blocker) {
        this.#blocker = this.#main.duplicate();
        // After a reconnect the blocking connection has another client id.
        void this.#blocker.loaded.then((client) => client.on("close", () => (this.#blockerId = undefined)), () => {});
      }
      const generation = this.#generation;
      let reply: Array<[string, Array<[string, string[]]>]> | null;
      try {
        reply = await this.#blocker.send((client) => {
          this.#blockerId ??= client.client("ID") as Promise<number>;
          this.#blockerId.catch(() => (this.#blockerId = undefined));
          this.#reading = generation;
          const keys = streams.map(([log]) => this.#layout.log(log));
          const ids = streams.map(([, next]) => entryId(next - 1));
          return client.xread("COUNT", READ_COUNT, "BLOCK", BLOCK_MS, "STREAMS", ...keys, ...ids);
        });
      } catch {
        this.#reading = undefined;
        this.#blockerId = undefined;
        if (this.#closed) break;
        await sleep(RETRY_MS);
        continue;
      }
      this.#reading = undefined;
      for (const [key, entries] of reply ?? []) this.#deliverEntries(key.slice(this.#layout.log("").length), entries);
    }
    this.#running = false;
    // A follower added while the loop was ending starts it again.
    if (!this.#closed && this.#positions().length > 0) this.#changed();
  }

  /** Each followed log with the lowest next index among its listeners that know theirs. */
  #positions(): Array<[string, number]> {
    const out: Array<[string, number]> = [];
    for (const [log, set] of this.#byLog) {
      let lowest: number | undefined;
      for (const { next } of set) if (next !== undefined && (lowest === undefined || next < lowest)) lowest = next;
      if (lowest !== undefined) out.push([log, lowest]);
    }
    return out;
  }

  #deliverEntries(log: string, entries: Array<[string, string[]]>): void {
    const set = this.#byLog.get(log);
    if (!set || entries.length === 0) return;
    // Entries come in id order without holes (nothing is ever trimmed): one contiguous run.
    const first = indexOf(entries[0]![0]);
    const lines = entries.map(([, fields]) => fields[1] ?? "");
    for (const entry of set) deliver(entry, set, first, lines);
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
