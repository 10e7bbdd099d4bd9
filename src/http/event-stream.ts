/**
 * NDJSON event streams: replay from storage, then follow live without gap or duplicate
 * (../base/events/follow.ts). The lines available at once go out as one chunk, so a burst of events
 * costs one socket write, not one per event.
 * @module
 */
import type { EventLogView } from "../base/events/log-view.ts";
import { isEventType } from "../base/events/vocabulary.ts";
import { followLog } from "../base/events/follow.ts";
import { NDJSON_HEADERS } from "../base/responses.ts";

export interface StreamOptions {
  startIndex: number;
  /** Keep the response open and deliver new events as they are appended. */
  follow: boolean;
  /** End after `session.completed` / `session.failed` (task sessions). */
  endOnTerminal: boolean;
  /** Ends every open stream when the host closes. */
  closing: { subscribe(listener: () => void): () => void };
}

export function eventStreamResponse(log: EventLogView, sessionId: string, options: StreamOptions): Response {
  const stop = new AbortController();
  const batches = followLog(log, sessionId, { from: options.startIndex, live: options.follow, signal: stop.signal });
  const unsubscribe = options.follow ? options.closing.subscribe(() => stop.abort()) : undefined;
  let finished = false;
  const finish = (): void => {
    finished = true;
    unsubscribe?.();
    stop.abort();
    void batches.return(undefined);
  };
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      // An empty first chunk makes servers send the headers now: a live follower should see the
      // response start even when no event is due yet.
      if (options.follow) controller.enqueue(new Uint8Array(0));
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
      controller.enqueue(lines === value.lines ? encodeShared(lines) : encode(lines));
      if (terminal >= 0) {
        finish();
        controller.close();
      }
    },
    cancel() {
      finish();
    },
  });
  return new Response(body, { status: 200, headers: NDJSON_HEADERS });
}

// --- internals ---

const encoder = new TextEncoder();

const encode = (lines: readonly string[]): Uint8Array => encoder.encode(`${lines.join("\n")}\n`);

/**
 * A committed batch reaches every live follower of its session as the same array (followLog hands
 * it on whole): it is joined and encoded once, not once per follower (docs/design/speed.md
 * "CPU per turn"). The bytes are only read by the sockets they are written to.
 */
const encoded = new WeakMap<readonly string[], Uint8Array>();
function encodeShared(lines: readonly string[]): Uint8Array {
  let bytes = encoded.get(lines);
  if (!bytes) {
    bytes = encode(lines);
    encoded.set(lines, bytes);
  }
  return bytes;
}

const isTerminal = (line: string): boolean => isEventType(line, "session.completed") || isEventType(line, "session.failed");
