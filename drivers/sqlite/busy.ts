/**
 * Waiting out another connection's (or process's) lock. SQLite's own busy handler is not used
 * for writes: it may sleep in whole seconds (builds without `usleep`), which is far too coarse for
 * two hosts sharing a state root, and it is never called where SQLite would deadlock (two
 * connections that both read the file and both want to write it, as two processes opening a new
 * file at once do when each switches it to WAL). Both come back as `SQLITE_BUSY`, retried here.
 * @module
 */

/** How long work waits for another connection's lock before the error is thrown. */
export const BUSY_WAIT_MS = 10_000;

// Made on first use: a runtime without SharedArrayBuffer (workerd) can still import this module.
let sleeper: Int32Array | undefined;

/** Runs `work`, again every millisecond while it fails with `SQLITE_BUSY`, for up to `BUSY_WAIT_MS`. */
export function whileBusy<T>(work: () => T): T {
  const deadline = Date.now() + BUSY_WAIT_MS;
  for (;;) {
    try {
      return work();
    } catch (error) {
      // `node:sqlite` names the result code `errcode`, `bun:sqlite` names it `errno`.
      const { errcode, errno } = error as { errcode?: unknown; errno?: unknown };
      const code = errcode ?? errno;
      if (typeof code !== "number" || (code & 0xff) !== 5 || Date.now() > deadline) throw error;
      Atomics.wait((sleeper ??= new Int32Array(new SharedArrayBuffer(4))), 0, 0, 1);
    }
  }
}
