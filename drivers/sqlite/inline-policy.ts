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
 * Small groups in a row, since the last big one, before commits go inline: under load groups are
 * big (every request's writes queue behind the thread's reply), and an inline commit in a lull
 * would only cost both connections their page caches (SQLite drops a connection's cache when the
 * other one wrote).
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
 * A single commit counts for at most this long (ms), and one slower than `SPIKE_MS` not at all
 * unless the one before it was too: the commit that runs SQLite's WAL checkpoint (every ~1,000
 * pages) takes several ms on any disk, and alone must not move commits. Counted even capped, one
 * sent a c=1 host's commits to the thread for `DWELL_MS` every couple of seconds. Two slow ones
 * in a row still do.
 */
const SAMPLE_CAP_MS = 4;
const SPIKE_MS = 2;
/**
 * Lone commits whose time is not counted: a new file's first commits grow it page by page and run
 * with cold statement caches, several ms each on any disk. Counted, they sent a fresh host's
 * commits to the thread for its first `DWELL_MS`.
 */
const WARM_UP = 16;
/** Weight of the newest commit's time in the smoothed figure. */
const WEIGHT = 0.25;

export interface InlinePolicy {
  /**
   * Whether `ops`, the whole group, may be committed on the event loop now. `followOn`: the
   * group built up behind a thread's reply; it stays on the thread, and only its size says
   * whether it had company (a lone writer's next write often queues behind its previous one).
   */
  inline(ops: readonly WriteOp[], followOn: boolean): boolean;
  /** How long (ms) a lone group's transaction took where it ran (inline or on the thread), its sync included. */
  took(ms: number): void;
}

export function inlinePolicy(clock: () => number = () => performance.now()): InlinePolicy {
  // Starts as if the disk synced fast: a lone writer gets the cheap path from its first turns,
  // and a slow disk sends commits to the thread after a sync or two (LEAVE_MS).
  let smoothed = ENTER_MS;
  let here = true;
  let lone = 0;
  let movedAt = -Infinity;
  let warming = WARM_UP;
  let spiked = false;
  return {
    inline(ops, followOn) {
      if (ops.length > INLINE_MAX_OPS) {
        lone = 0;
        return false;
      }
      lone = Math.min(lone + 1, LONE_RUN);
      return !followOn && here && lone >= LONE_RUN;
    },
    took(ms) {
      if (warming > 0) {
        warming--;
        return;
      }
      const spike = ms > SPIKE_MS;
      const isolated = spike && !spiked;
      spiked = spike;
      if (isolated) return;
      smoothed += WEIGHT * (Math.min(ms, SAMPLE_CAP_MS) - smoothed);
      // Off the event loop at once when syncs slow down; back onto it only after a while.
      if (here && smoothed > LEAVE_MS) {
        here = false;
        movedAt = clock();
      } else if (!here && smoothed < ENTER_MS && clock() - movedAt >= DWELL_MS) here = true;
    },
  };
}
