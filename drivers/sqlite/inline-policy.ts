/**
 * When the sqlite driver commits a group on the event loop instead of handing it to its writer
 * thread (docs/design/speed.md "A lone commit runs inline"). A lone small group is cheaper to
 * commit where it is than to send: the hand-off (structured clone, waking the idle thread, the
 * reply) costs more CPU than the transaction. But an inline commit holds the event loop for its
 * sync, where the thread lets the loop go on (a model streaming while its step's start is
 * synced), so only while the disk syncs fast. Under load, or on a slow disk, the thread keeps the
 * sync off the event loop.
 * @module
 */
import type { WriteOp } from "./schema.ts";

/** A group larger than this has company: other work is running, so the sync goes to the thread. */
const INLINE_MAX_OPS = 4;
/**
 * Commits move inline when a commit takes (smoothed) under `ENTER_MS`, and back to the thread
 * when it takes over `LEAVE_MS`: between the two they stay where they are, since switching
 * connections costs each one its page cache (SQLite drops it when the other one wrote).
 */
const ENTER_MS = 0.75;
const LEAVE_MS = 1.5;
/**
 * Lone small groups in a row, since the last group with company, before commits go inline: under
 * load the writer is rarely idle, and an inline commit in a lull would only cost both connections
 * their page caches (SQLite drops a connection's cache when the other one wrote).
 */
const LONE_RUN = 8;
/**
 * The least time (ms) commits stay on the thread after slow syncs moved them there: a disk whose
 * syncs are bimodal (a loaded one: 0.4 ms, then 3 ms) would otherwise move them every few
 * commits, and each move costs the connections their caches. Measured: a replayed turn's driver
 * CPU was 1.1× the thread-only driver's with commits moving freely, 22% of them inline
 * (bench/README.md). Leaving the event loop is never delayed.
 */
const DWELL_MS = 2000;
/**
 * A single commit counts for at most this long (ms): the commit that runs SQLite's WAL
 * checkpoint (every ~1,000 pages) takes several ms on any disk, and alone must not move commits.
 * Two slow ones in a row still do.
 */
const SAMPLE_CAP_MS = 4;
/** Weight of the newest commit's time in the smoothed figure. */
const WEIGHT = 0.25;

export interface InlinePolicy {
  /**
   * Whether `ops`, the whole group, may be committed on the event loop now. `followOn`: the
   * group built up behind a thread's reply, so it has company whatever its size.
   */
  inline(ops: readonly WriteOp[], followOn: boolean): boolean;
  /** How long (ms) a lone group's transaction took where it ran (inline or on the thread), its sync included. */
  took(ms: number): void;
}

export function inlinePolicy(clock: () => number = () => performance.now()): InlinePolicy {
  // Starts on the thread: the first commits (the file's first pages) tell how fast this disk is.
  let smoothed = LEAVE_MS;
  let here = false;
  let lone = 0;
  let movedAt = -Infinity;
  return {
    inline(ops, followOn) {
      if (followOn || ops.length > INLINE_MAX_OPS) {
        lone = 0;
        return false;
      }
      lone = Math.min(lone + 1, LONE_RUN);
      return here && lone >= LONE_RUN;
    },
    took(ms) {
      smoothed += WEIGHT * (Math.min(ms, SAMPLE_CAP_MS) - smoothed);
      // Off the event loop at once when syncs slow down; back onto it only after a while.
      if (here && smoothed > LEAVE_MS) {
        here = false;
        movedAt = clock();
      } else if (!here && smoothed < ENTER_MS && clock() - movedAt >= DWELL_MS) here = true;
    },
  };
}
