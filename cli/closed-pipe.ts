/**
 * A reader that goes away (`agent-serve logs --json | head`) closes our stdout; the next write
 * fails with EPIPE. That is the reader's way of saying "enough", not an error: exit at once,
 * quietly, as `cat` and `grep` do.
 * @module
 */

interface ErrorSource {
  on(event: "error", listener: (error: Error & { code?: string }) => void): unknown;
}

/** Installs the handler on `streams`; other stream errors are rethrown as before. */
export function exitQuietlyOnClosedPipe(streams: readonly ErrorSource[], exit: (code: number) => void): void {
  for (const stream of streams) {
    stream.on("error", (error) => {
      if (error.code === "EPIPE") exit(0);
      else throw error;
    });
  }
}
