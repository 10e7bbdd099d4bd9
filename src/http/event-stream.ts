/**
 * NDJSON event streams: replay from storage, then follow live without gap or duplicate.
 *
 * The live listener is registered before the stored range is read, and lines are deduplicated by
 * index, so an event appended during the replay is delivered exactly once.
 * @module
 */
import type { EventLog } from "../sessions/event-log.ts";
import { isEventType } from "../sessions/events.ts";
import { NDJSON_HEADERS } from "./responses.ts";

export interface StreamOptions {
  startIndex: number;
  /** Keep the response open and deliver new events as they are appended. */
  follow: boolean;
  /** End after `session.completed` / `session.failed` (task sessions). */
  endOnTerminal: boolean;
  /** Ends every open stream when the host closes. */
  closing: { subscribe(listener: () => void): () => void };
}

export function eventStreamResponse(log: EventLog, sessionId: string, options: StreamOptions): Response {
  const source = new EventSource(log, sessionId, options);
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      // An empty first chunk makes servers send the headers now: a live follower should see the
      // response start even when no event is due yet.
      if (options.follow) controller.enqueue(new Uint8Array(0));
    },
    async pull(controller) {
      const chunk = await source.next();
      if (chunk === undefined) controller.close();
      else controller.enqueue(chunk);
    },
    cancel() {
      source.cancel();
    },
  });
  return new Response(body, { status: 200, headers: NDJSON_HEADERS });
}

// --- internals ---

const encoder = new TextEncoder();

class EventSource {
  readonly #log: EventLog;
  readonly #sessionId: string;
  readonly #options: StreamOptions;
  #next: number;
  #queue: Array<{ first: number; lines: readonly string[] }> = [];
  #wake: (() => void) | undefined;
  #done = false;
  #replay: AsyncIterator<string[]> | undefined;
  #replayEnd: number | undefined;
  readonly #cleanups: Array<() => void> = [];

  constructor(log: EventLog, sessionId: string, options: StreamOptions) {
    this.#log = log;
    this.#sessionId = sessionId;
    this.#options = options;
    this.#next = options.startIndex;
    if (options.follow) {
      this.#cleanups.push(
        log.subscribe(sessionId, (first, lines) => {
          this.#queue.push({ first, lines });
          this.#wake?.();
        }),
        options.closing.subscribe(() => this.cancel()),
      );
    }
  }

  /** The next NDJSON chunk, or undefined when the stream ends. */
  async next(): Promise<Uint8Array | undefined> {
    while (!this.#done) {
      const lines = (await this.#fromReplay()) ?? this.#fromQueue();
      if (lines && lines.length > 0) return this.#emit(lines);
      if (lines === undefined && this.#replayFinished()) {
        if (!this.#options.follow) break;
        await new Promise<void>((resolve) => {
          this.#wake = resolve;
        });
        this.#wake = undefined;
      }
    }
    this.#finish();
    return undefined;
  }

  cancel(): void {
    this.#done = true;
    this.#wake?.();
    this.#finish();
  }

  #replayFinished(): boolean {
    return this.#replayEnd !== undefined && this.#replay === undefined;
  }

  async #fromReplay(): Promise<string[] | undefined> {
    if (this.#replayEnd === undefined) {
      this.#replayEnd = await this.#log.length(this.#sessionId);
      if (this.#next < this.#replayEnd) {
        this.#replay = this.#log.read(this.#sessionId, this.#next, this.#replayEnd)[Symbol.asyncIterator]();
      }
    }
    if (!this.#replay) return undefined;
    const { value, done } = await this.#replay.next();
    if (done) {
      this.#replay = undefined;
      return undefined;
    }
    return value;
  }

  #fromQueue(): string[] | undefined {
    while (this.#queue.length > 0) {
      const { first, lines } = this.#queue[0]!;
      const end = first + lines.length;
      if (end <= this.#next) {
        this.#queue.shift();
        continue;
      }
      if (first > this.#next) {
        // Lines were published that this stream never saw (it fell behind a replay boundary):
        // read the hole back from storage rather than skipping it.
        this.#replayEnd = first;
        this.#replay = this.#log.read(this.#sessionId, this.#next, first)[Symbol.asyncIterator]();
        return [];
      }
      this.#queue.shift();
      return lines.slice(this.#next - first);
    }
    return undefined;
  }

  #emit(lines: string[]): Uint8Array {
    let count = lines.length;
    if (this.#options.endOnTerminal) {
      const terminal = lines.findIndex(
        (line) => isEventType(line, "session.completed") || isEventType(line, "session.failed"),
      );
      if (terminal >= 0) {
        count = terminal + 1;
        this.#done = true;
      }
    }
    const out = count === lines.length ? lines : lines.slice(0, count);
    this.#next += out.length;
    return encoder.encode(out.join("\n") + "\n");
  }

  #finish(): void {
    for (const cleanup of this.#cleanups.splice(0)) cleanup();
    void this.#replay?.return?.();
    this.#replay = undefined;
  }
}
