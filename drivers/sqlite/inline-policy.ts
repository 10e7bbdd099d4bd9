/**
 * When the sqlite driver commits a group on the event loop instead of handing it to its writer
 * thread (docs/design/speed.md "A lone commit runs inline"). A lone small group is cheaper to
 * commit where it is than to send: the hand-off (structured clone, waking the idle thread, the
 * reply) costs more CPU than the transaction, and the event loop has nothing else to do while it
 * waits. Under load, or on a slow disk, the thread keeps the sync off the event loop.
 * @module
 */
import type { WriteOp } from "./schema.ts";

/** A group larger than this has company: other work is running, so the sync goes to the thread. */
const INLINE_MAX_OPS = 4;
/** An inline commit that held the event loop longer than this (ms) was slow. */
const INLINE_SLOW_MS = 2;
/**
 * Slow inline commits in a row that send commits to the thread for a while: one slow sync is
 * often the machine, not the disk (a preempted thread); a row of them is the disk.
 */
const INLINE_SLOW_ROW = 3;
/** How long (ms) the thread takes every commit after a slow inline one, before inline is tried again. */
const INLINE_BACKOFF_MS = 1000;

export interface InlinePolicy {
  /** Whether `ops`, the whole group, may be committed on the event loop now. */
  inline(ops: readonly WriteOp[]): boolean;
  /** How long (ms) an inline commit held the event loop. */
  took(ms: number): void;
}

export function inlinePolicy(clock: () => number = () => performance.now()): InlinePolicy {
  let threadUntil = 0;
  let slowRow = 0;
  return {
    inline(ops) {
      if (ops.length > INLINE_MAX_OPS) return false;
      if (threadUntil === 0) return true;
      if (clock() < threadUntil) return false;
      threadUntil = 0;
      return true;
    },
    took(ms) {
      if (ms <= INLINE_SLOW_MS) slowRow = 0;
      else if (++slowRow >= INLINE_SLOW_ROW) {
        slowRow = 0;
        threadUntil = clock() + INLINE_BACKOFF_MS;
      }
    },
  };
}
