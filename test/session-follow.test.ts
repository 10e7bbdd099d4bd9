/**
 * The session-follow primitive and the NDJSON stream over it: gapless replay then live, and the
 * events available at once written as one chunk.
 */
import { describe, expect, it } from "vitest";
import { eventStreamResponse } from "../src/http/event-stream.ts";
import { EventLog } from "../src/engine/sessions/event-log.ts";
import { type LogListener } from "../src/base/events/follow.ts";
import type { EventDraft } from "../src/base/events/vocabulary.ts";
import { type FollowableLog, followLog } from "../src/base/events/follow.ts";
import { createMemoryStorage } from "../src/base/storage/memory.ts";

const neverClosing = { subscribe: () => () => {} };
const delta = (n: number): EventDraft => ({ type: "message.appended", turnId: "turn_1", data: { delta: `d${n}` } });

function newLog(): EventLog {
  return new EventLog(createMemoryStorage(), Date.now);
}

/** Reads chunks until `lines` NDJSON lines arrived; returns the line count of every chunk. */
async function readChunks(reader: ReadableStreamDefaultReader<Uint8Array>, lines: number): Promise<{ sizes: number[]; text: string }> {
  const decoder = new TextDecoder();
  const sizes: number[] = [];
  let text = "";
  while (text.split("\n").length - 1 < lines) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`the stream ended after ${text.split("\n").length - 1} lines`);
    if (value.byteLength === 0) continue;
    const chunk = decoder.decode(value, { stream: true });
    sizes.push(chunk.split("\n").length - 1);
    text += chunk;
  }
  return { sizes, text };
}

const indexes = (text: string): number[] => text.split("\n").filter(Boolean).map((line) => (JSON.parse(line) as { index: number }).index);

describe("NDJSON stream chunks", () => {
  it("writes the events appended while the reader was busy as one chunk, not one per event", async () => {
    const log = newLog();
    await log.append("s1", [delta(0), delta(1)]);
    const response = eventStreamResponse(log, "s1", { startIndex: 0, follow: true, endOnTerminal: false, closing: neverClosing });
    const reader = response.body!.getReader();
    const replay = await readChunks(reader, 2);
    expect(replay.sizes).toEqual([2]);

    // Ten separate appends (ten log writes, ten publications) while nobody reads the stream.
    for (let n = 2; n < 12; n++) await log.append("s1", [delta(n)]);
    const live = await readChunks(reader, 10);
    // The stream had already asked for the next batch when the first publication landed (one
    // append, or two, depending on when the driver's follow delivers it); the rest were available
    // at once when the reader came back, and go out together.
    expect(live.sizes).toHaveLength(2);
    expect(live.sizes[1]).toBeGreaterThanOrEqual(8);
    expect(indexes(live.text)).toEqual([2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
    await reader.cancel();
  });

  it("writes one group-committed batch as one chunk", async () => {
    const log = newLog();
    const response = eventStreamResponse(log, "s2", { startIndex: 0, follow: true, endOnTerminal: false, closing: neverClosing });
    const reader = response.body!.getReader();
    await reader.read(); // the empty chunk that starts the response
    await log.append("s2", Array.from({ length: 50 }, (_, n) => delta(n)));
    const live = await readChunks(reader, 50);
    expect(live.sizes).toEqual([50]);
    expect(indexes(live.text)).toEqual(Array.from({ length: 50 }, (_, n) => n));
    await reader.cancel();
  });
});

describe("followLog", () => {
  it("replays from an index, then follows live with no gap or duplicate", async () => {
    const log = newLog();
    for (let n = 0; n < 5; n++) await log.append("s3", [delta(n)]);
    const stop = new AbortController();
    const seen: number[] = [];
    const done = (async () => {
      for await (const { first, lines } of followLog(log, "s3", { from: 2, live: true, signal: stop.signal })) {
        lines.forEach((_, i) => seen.push(first + i));
        if (seen.at(-1) === 9) stop.abort();
      }
    })();
    for (let n = 5; n < 10; n++) await log.append("s3", [delta(n)]);
    await done;
    expect(seen).toEqual([2, 3, 4, 5, 6, 7, 8, 9]);
  });

  it("reads back from storage lines published while the follower was not subscribed", async () => {
    const log = newLog();
    for (let n = 0; n < 5; n++) await log.append("s4", [delta(n)]);
    const [five] = await log.append("s4", [delta(5)]);
    // A source that saw three stored lines and whose live feed then starts at index 5 (as a
    // listener registered late would): the follower reads 3 and 4 from storage, not skip them.
    let listener: LogListener | undefined;
    const source: FollowableLog = {
      length: async () => 3,
      read: (id, from, to) => log.read(id, from, to),
      subscribe: (_id, l) => ((listener = l), () => (listener = undefined)),
    };
    const stop = new AbortController();
    const seen: number[] = [];
    const done = (async () => {
      for await (const { first, lines } of followLog(source, "s4", { from: 0, live: true, signal: stop.signal })) {
        lines.forEach((_, i) => seen.push(first + i));
        if (seen.length === 6) stop.abort();
      }
    })();
    await new Promise((resolve) => setTimeout(resolve, 0));
    listener?.(5, [JSON.stringify(five)]);
    await done;
    expect(seen).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it("ends after the stored lines when not live, and on abort when live", async () => {
    const log = newLog();
    await log.append("s5", [delta(0), delta(1)]);
    const batches = [];
    for await (const batch of followLog(log, "s5", { from: 0, live: false, signal: new AbortController().signal })) batches.push(batch);
    expect(batches.map((b) => b.lines.length)).toEqual([2]);

    const stop = new AbortController();
    const iterator = followLog(log, "s5", { from: 2, live: true, signal: stop.signal });
    const pending = iterator.next();
    setTimeout(() => stop.abort(), 10);
    expect((await pending).done).toBe(true);
  });
});
