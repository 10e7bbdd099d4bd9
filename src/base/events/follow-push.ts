/**
 * `followLog` for the HTTP streams, pushed rather than pulled: the stored lines from an index, then
 * the live ones, handed to a sink as they come, with the same no-gap, no-duplicate rules as
 * ./follow.ts (the listener registered before the stored range is read, lines placed by index, a
 * hole read back from storage). An open follower is its listener and a few fields, with no
 * suspended generator, abort signal or pending promise: what lets one process hold 10,000 open
 * streams in little memory (docs/design/listing.md "Streams").
 *
 * A driver's own follow (`log.follow`, across processes) is an async iterable; it is pumped here
 * into the same sink.
 * @module
 */
import { createError } from "../errors.ts";
import { type FollowableLog, type LineBatch, followLog, takePublished } from "./follow.ts";

export interface PushSink {
  /** Consecutive lines from index `first`; answers false when the sink wants no more for now. */
  lines(first: number, lines: readonly string[]): boolean;
  /** Reading the log failed; the follower has stopped. */
  error(error: unknown): void;
}

export interface PushFollower {
  /** The sink can take more: hands over what was held back. */
  resume(): void;
  /** Stops following; nothing more reaches the sink. */
  stop(): void;
}

/** Follows the session's log live from `from`, into `sink`. */
export function followLogPush(log: FollowableLog, sessionId: string, from: number, sink: PushSink): PushFollower {
  if (log.follow) return pumped(log, sessionId, from, sink);
  let next = from;
  let stopped = false;
  /** Reading from storage (the replay, or a hole): live lines wait in `published` meanwhile. */
  let reading = true;
  /** The sink said no more for now: lines wait until `resume`. */
  let full = false;
  /** A read from storage waiting for the sink to take more. */
  let wake: (() => void) | undefined;
  /** A drain is queued: the publisher's commit path only records the lines. */
  let queued = false;
  const published: LineBatch[] = [];
  const deliver = (lines: readonly string[]): void => {
    const first = next;
    next += lines.length;
    if (!sink.lines(first, lines)) full = true;
  };
  const fail = (error: unknown): void => {
    if (stopped) return;
    stop();
    sink.error(error);
  };
  /** Reads `[next, to)` from storage, then goes on with what was published meanwhile. */
  const read = (to: number | undefined): void => {
    reading = true;
    void (async () => {
      const end = to ?? (await log.length(sessionId));
      const before = next;
      for await (const lines of log.read(sessionId, next, end)) {
        if (stopped) return;
        if (lines.length > 0) deliver(lines);
        // A slow reader holds the replay back rather than the whole log piling up in its queue.
        while (full && !stopped) await new Promise<void>((resolve) => (wake = resolve));
        if (stopped) return;
      }
      if (to !== undefined && next === before) throw createError("events", `lines ${next}..${to} were published but cannot be read`);
      reading = false;
      drain();
    })().catch(fail);
  };
  const drain = (): void => {
    queued = false;
    try {
      while (!stopped && !reading && !full) {
        const batch = takePublished(published, next);
        if (batch === "hole") return read(published[0]!.first);
        if (batch.length === 0) return;
        deliver(batch);
      }
    } catch (error) {
      fail(error);
    }
  };
  // Registered before the stored range is read: a line appended in between is published here.
  const unsubscribe = log.subscribe(sessionId, (first, lines) => {
    published.push({ first, lines });
    if (!queued && !reading && !full) {
      queued = true;
      queueMicrotask(drain);
    }
  });
  const stop = (): void => {
    stopped = true;
    published.length = 0;
    unsubscribe();
    wake?.();
  };
  read(undefined);
  return {
    resume() {
      full = false;
      if (wake) {
        const go = wake;
        wake = undefined;
        go();
      } else drain();
    },
    stop,
  };
}

// --- internals ---

/** A driver's own follow, pumped into the sink; `resume` lets a held-back pump go on. */
function pumped(log: FollowableLog, sessionId: string, from: number, sink: PushSink): PushFollower {
  const stop = new AbortController();
  let wake: (() => void) | undefined;
  let full = false;
  void (async () => {
    for await (const { first, lines } of followLog(log, sessionId, { from, live: true, signal: stop.signal })) {
      if (stop.signal.aborted) return;
      if (!sink.lines(first, lines)) full = true;
      while (full && !stop.signal.aborted) await new Promise<void>((resolve) => (wake = resolve));
    }
  })().catch((error: unknown) => {
    if (!stop.signal.aborted) sink.error(error);
  });
  return {
    resume() {
      full = false;
      wake?.();
    },
    stop() {
      stop.abort();
      wake?.();
    },
  };
}
