/**
 * The caller's side of a remote `follow` (docs/design/cloudflare.md "The storage protocol"): reads
 * the coordinator's NDJSON stream and hands each batch to the listener once, in index order. When
 * the stream ends without an unsubscribe (the coordinator restarted), it subscribes again and
 * reads what was committed meanwhile from the log before going on, so the follower misses nothing.
 * @module
 */
import type { FollowListener } from "../../src/base/storage/types.ts";
import type { StorageTransport } from "./storage-wire.ts";

/** Waits before subscribing again, growing to this at most. */
const MAX_RETRY_MS = 2_000;

export interface RemoteFollow {
  transport: StorageTransport;
  namespace: string;
  log: string;
  id: string;
  listener: FollowListener;
  signal: AbortSignal;
  /** Lines of the log from `from` on, through the caller's ordered pipeline. */
  readFrom(from: number): AsyncIterable<string[]>;
  /** Called once, when the first subscription is in place (or has failed). */
  onSubscribed(): void;
}

export async function followRemote(follow: RemoteFollow): Promise<void> {
  const { signal } = follow;
  /** The index after the last line handed on; lines below it are not handed on again. */
  let next: number | undefined;
  let first = true;
  const deliver = (at: number, lines: readonly string[]): void => {
    if (signal.aborted) return;
    const skip = next === undefined ? 0 : Math.max(0, next - at);
    if (skip >= lines.length) return;
    next = at + lines.length;
    follow.listener(at + skip, skip === 0 ? lines : lines.slice(skip));
  };
  for (let retryMs = 100; !signal.aborted; retryMs = Math.min(MAX_RETRY_MS, retryMs * 2)) {
    try {
      const response = await follow.transport({ namespace: follow.namespace, follow: follow.log, followId: follow.id }, signal);
      const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
      signal.addEventListener("abort", () => void reader.cancel().catch(() => {}), { once: true });
      let buffer = "";
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += value;
        let newline: number;
        while ((newline = buffer.indexOf("\n")) >= 0) {
          const message = JSON.parse(buffer.slice(0, newline)) as { ready?: true; length?: number; first?: number; lines?: string[] };
          buffer = buffer.slice(newline + 1);
          if (!message.ready) {
            deliver(message.first!, message.lines!);
            continue;
          }
          retryMs = 100;
          if (first) {
            next ??= message.length;
            first = false;
            follow.onSubscribed();
          } else if (next !== undefined) {
            // Subscribed again: what was committed while no stream was open comes from the log;
            // the stream's lines wait unread until then and duplicates are dropped by index.
            for await (const lines of follow.readFrom(next)) deliver(next, lines);
          }
        }
      }
    } catch {
      // Unsubscribed, or the coordinator went away: subscribe again below unless unsubscribed.
    }
    if (first) {
      first = false;
      follow.onSubscribed();
    }
    if (signal.aborted) return;
    await new Promise((resolve) => setTimeout(resolve, retryMs));
  }
}
