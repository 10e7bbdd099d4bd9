/**
 * Following a session's event log: the stored lines from an index, then the live ones as they are
 * appended, with no gap and no duplicate. The NDJSON stream, MCP `ask`/`check` and evals all
 * watch a session through it.
 *
 * Gapless because the live listener is registered before the stored range is read, lines are
 * placed by index (what a replay already delivered is dropped), and a hole between what was
 * delivered and what is published is read back from storage rather than skipped.
 * @module
 */
import { createError } from "../errors.ts";

/** The part of the event log a follower reads: what the storage port gives every driver. */
export interface FollowableLog {
  /** Number of durable lines. */
  length(sessionId: string): Promise<number>;
  read(sessionId: string, from: number, to?: number): AsyncIterable<string[]>;
  /** Live lines, delivered after they are durable. */
  subscribe(sessionId: string, listener: LogListener): () => void;
  /**
   * A driver's own live follow (for example across processes sharing storage), used in place of
   * read + subscribe when present. It keeps the same contract as {@link followLog}.
   */
  follow?(sessionId: string, options: FollowOptions): AsyncIterable<LineBatch>;
}

export interface FollowOptions {
  /** First index to deliver. */
  from: number;
  /** After the stored lines, wait for new ones; false ends once the stored lines are delivered. */
  live: boolean;
  /** Ends a live follow (the stored lines read so far are still delivered). */
  signal: AbortSignal;
}

/** Consecutive lines starting at index `first`. */
export interface LineBatch {
  first: number;
  lines: readonly string[];
}

/**
 * Yields the session's lines from `options.from`. Each live batch holds every line available when
 * the consumer asks (a slow consumer gets fewer, larger batches). Ends when the signal aborts, or
 * after the stored lines when not live; to stop early, abort the signal or leave the loop.
 */
export async function* followLog(log: FollowableLog, sessionId: string, options: FollowOptions): AsyncGenerator<LineBatch> {
  if (options.live && log.follow) {
    yield* log.follow(sessionId, options);
    return;
  }
  const { signal } = options;
  const published: LineBatch[] = [];
  let wake: (() => void) | undefined;
  const poke = (): void => wake?.();
  // Registered before the stored range is read: a line appended in between is published here.
  const unsubscribe = options.live
    ? log.subscribe(sessionId, (first, lines) => {
        published.push({ first, lines });
        poke();
      })
    : undefined;
  signal.addEventListener("abort", poke);
  let next = options.from;
  try {
    for await (const lines of readRange(log, sessionId, next, await log.length(sessionId))) {
      yield { first: next, lines };
      next += lines.length;
    }
    while (options.live && !signal.aborted) {
      const batch = take(published, next);
      if (batch === "hole") {
        // Lines were published that this follower never saw: read them back from storage.
        const before = next;
        for await (const lines of readRange(log, sessionId, next, published[0]!.first)) {
          yield { first: next, lines };
          next += lines.length;
        }
        if (next === before) throw createError("events", `lines ${next}..${published[0]!.first} were published but cannot be read`);
        continue;
      }
      if (batch.length > 0) {
        yield { first: next, lines: batch };
        next += batch.length;
        continue;
      }
      await new Promise<void>((resolve) => (wake = resolve));
      wake = undefined;
    }
  } finally {
    unsubscribe?.();
    signal.removeEventListener("abort", poke);
  }
}

// --- internals ---

async function* readRange(log: FollowableLog, sessionId: string, from: number, to: number): AsyncGenerator<readonly string[]> {
  if (from >= to) return;
  for await (const lines of log.read(sessionId, from, to)) if (lines.length > 0) yield lines;
}

/**
 * Takes the published lines from `next` on, joined; "hole" when the first starts after `next`.
 * A single batch taken whole is handed on as the very array the driver published, which every
 * follower of the log received: a stream can then encode it once for all of them
 * (../../http/event-stream.ts).
 */
function take(published: LineBatch[], next: number): readonly string[] | "hole" {
  if (published.length === 1 && published[0]!.first === next) return published.shift()!.lines;
  const out: string[] = [];
  while (published.length > 0) {
    const { first, lines } = published[0]!;
    const at = next + out.length;
    if (first + lines.length <= at) {
      published.shift();
      continue;
    }
    if (first > at) return out.length > 0 ? out : "hole";
    published.shift();
    for (let i = at - first; i < lines.length; i++) out.push(lines[i]!);
  }
  return out;
}

export type LogListener = (firstIndex: number, lines: readonly string[]) => void;
