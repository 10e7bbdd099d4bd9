/**
 * Status for long work: a spinner on a terminal, one plain line per step otherwise. Always on
 * stderr, so stdout stays clean for `--json` and pipes.
 * @module
 */
import type { CliIo } from "./io.ts";
import { createStyle } from "./style.ts";

export interface Progress {
  /** Shows `text` until the next call. */
  start(text: string): void;
  /** Ends the current step with a final line. */
  done(text?: string): void;
  /** Ends the current step as failed. */
  fail(text: string): void;
  /** Clears the spinner without a final line. */
  stop(): void;
}

const FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

/** A progress reporter writing to `io.stderr`; `quiet` silences it (machine output). */
export function createProgress(io: CliIo, options: { quiet?: boolean } = {}): Progress {
  const out = io.stderr;
  const style = createStyle(out, io.env);
  if (options.quiet) return { start() {}, done() {}, fail() {}, stop() {} };
  // NO_COLOR asks for plain output: no escapes, so no spinner either (https://no-color.org).
  if (!out.isTTY || io.env.NO_COLOR) {
    return {
      start: (text) => out.write(`${text}…\n`),
      done: (text) => {
        if (text) out.write(`${text}\n`);
      },
      fail: (text) => out.write(`${text}\n`),
      stop() {},
    };
  }
  let timer: ReturnType<typeof setInterval> | undefined;
  let current = "";
  let frame = 0;
  const clear = (): void => {
    if (timer === undefined) return;
    clearInterval(timer);
    timer = undefined;
    out.write("\r\u001B[2K");
  };
  const draw = (): void => {
    out.write(`\r\u001B[2K${style.cyan(FRAMES[frame++ % FRAMES.length] ?? "")} ${current}`);
  };
  return {
    start(text) {
      clear();
      current = text;
      draw();
      timer = setInterval(draw, 80);
      // A spinner never keeps the process alive on its own.
      timer.unref?.();
    },
    done(text) {
      clear();
      if (text) out.write(`${style.green("✔")} ${text}\n`);
    },
    fail(text) {
      clear();
      out.write(`${style.red("✖")} ${text}\n`);
    },
    stop: clear,
  };
}
