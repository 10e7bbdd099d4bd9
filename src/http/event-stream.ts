/**
 * Event streams, NDJSON or Server-Sent Events: replay from storage, then follow live without gap
 * or duplicate (../base/events/follow.ts). The lines available at once go out as one chunk, so a
 * burst of events costs one socket write, not one per event. SSE frames are written here from the
 * stored lines and their indexes, not re-framed from NDJSON by a second stream: an open stream
 * is one `ReadableStream` and nothing is parsed per follower (docs/design/listing.md "Streams").
 * @module
 */
import type { EventLogView } from "../base/events/log-view.ts";
import { isEventType } from "../base/events/vocabulary.ts";
import { followLog } from "../base/events/follow.ts";
import { type PushFollower, followLogPush } from "../base/events/follow-push.ts";
import { NDJSON_HEADERS } from "../base/responses.ts";
import { SSE_HEADERS, SSE_OPENING, sseFrame } from "./sse.ts";

export interface StreamOptions {
  startIndex: number;
  /** Keep the response open and deliver new events as they are appended. */
  follow: boolean;
  /** End after `session.completed` / `session.failed` (task sessions). */
  endOnTerminal: boolean;
  /** Ends every open stream when the host closes. */
  closing: { subscribe(listener: () => void): () => void };
  /** Server-Sent Events frames (`id:` the event's index) instead of NDJSON lines. @default "ndjson" */
  format?: "ndjson" | "sse";
}

export function eventStreamResponse(log: EventLogView, sessionId: string, options: StreamOptions): Response {
  const sse = options.format === "sse";
  const body = options.follow ? liveBody(log, sessionId, options, sse) : dumpBody(log, sessionId, options, sse);
  return new Response(body, { status: 200, headers: sse ? SSE_HEADERS : NDJSON_HEADERS });
}

// --- internals ---

/**
 * A live stream: the follower pushes lines in as they come (../base/events/follow-push.ts); the
 * stream's queue holding a chunk the client has not read yet holds the follower back until the
 * next pull, so a slow client gets fewer, larger chunks.
 */
function liveBody(log: EventLogView, sessionId: string, options: StreamOptions, sse: boolean): ReadableStream<Uint8Array> {
  let follower: PushFollower | undefined;
  let unsubscribe: (() => void) | undefined;
  let ended = false;
  const end = (): void => {
    ended = true;
    follower?.stop();
    unsubscribe?.();
  };
  return new ReadableStream<Uint8Array>({
    start(controller) {
      // A first chunk makes servers send the headers now: a live follower should see the
      // response start even when no event is due yet (an SSE comment; an empty NDJSON chunk).
      controller.enqueue(sse ? SSE_OPENING : new Uint8Array(0));
      unsubscribe = options.closing.subscribe(() => {
        if (ended) return;
        end();
        controller.close();
      });
      follower = followLogPush(log, sessionId, options.startIndex, {
        lines(first, all) {
          if (ended) return false;
          const terminal = options.endOnTerminal ? all.findIndex(isTerminal) : -1;
          const lines = terminal >= 0 ? all.slice(0, terminal + 1) : all;
          controller.enqueue(terminal >= 0 ? encode(first, lines, sse) : shared(first, lines, sse));
          if (terminal >= 0) {
            end();
            controller.close();
            return false;
          }
          return (controller.desiredSize ?? 0) > 0;
        },
        error(error) {
          if (ended) return;
          end();
          controller.error(error);
        },
      });
    },
    pull() {
      follower?.resume();
    },
    cancel() {
      end();
    },
  });
}

/** A one-shot dump of the stored lines, read as the client reads. */
function dumpBody(log: EventLogView, sessionId: string, options: StreamOptions, sse: boolean): ReadableStream<Uint8Array> {
  const stop = new AbortController();
  const batches = followLog(log, sessionId, { from: options.startIndex, live: false, signal: stop.signal });
  let finished = false;
  const finish = (): void => {
    finished = true;
    stop.abort();
    void batches.return(undefined);
  };
  return new ReadableStream<Uint8Array>({
    start(controller) {
      if (sse) controller.enqueue(SSE_OPENING);
    },
    async pull(controller) {
      const { value, done } = await batches.next();
      if (finished) return; // cancelled while waiting
      if (done) {
        finish();
        controller.close();
        return;
      }
      const terminal = options.endOnTerminal ? value.lines.findIndex(isTerminal) : -1;
      const lines = terminal >= 0 ? value.lines.slice(0, terminal + 1) : value.lines;
      controller.enqueue(encoder.encode(sse ? frames(value.first, lines) : `${lines.join("\n")}\n`));
      if (terminal >= 0) {
        finish();
        controller.close();
      }
    },
    cancel() {
      finish();
    },
  });
}

const encoder = new TextEncoder();

/** The bytes of one batch: NDJSON lines, or SSE frames. */
function encode(first: number, lines: readonly string[], sse: boolean): Uint8Array {
  return encoder.encode(sse ? frames(first, lines) : `${lines.join("\n")}\n`);
}

/** Bytes made once per published batch and format, for every follower that gets that batch whole. */
const encoded = new WeakMap<readonly string[], { first: number; ndjson?: Uint8Array; sse?: Uint8Array }>();

function shared(first: number, lines: readonly string[], sse: boolean): Uint8Array {
  let entry = encoded.get(lines);
  if (!entry || entry.first !== first) encoded.set(lines, (entry = { first }));
  const format = sse ? "sse" : "ndjson";
  return (entry[format] ??= encode(first, lines, sse));
}

/** SSE frames of consecutive lines from index `first`: the index is known, so no line is parsed. */
function frames(first: number, lines: readonly string[]): string {
  let out = "";
  for (let i = 0; i < lines.length; i++) out += sseFrame({ index: first + i }, lines[i]);
  return out;
}

const isTerminal = (line: string): boolean => isEventType(line, "session.completed") || isEventType(line, "session.failed");
