/**
 * Lines typed by the user: readline with line editing and a prompt on a terminal, plain lines
 * (no prompt) from a pipe. Lines that arrive while nobody asks are kept in order.
 * @module
 */
import { createInterface } from "node:readline";
import type { CliIo } from "./io.ts";

export interface LineReader {
  /** Whether input and output are a terminal (prompts are drawn, input is edited and echoed). */
  readonly terminal: boolean;
  /** The next line, or undefined once input has ended (Ctrl-D, end of a pipe, `close()`). */
  next(prompt: string): Promise<string | undefined>;
  /** Called on Ctrl-C at a terminal (instead of the default of killing the process). */
  onInterrupt(handler: () => void): void;
  /**
   * Answers the pending `next()` with `answer` instead of a typed line, and clears what was typed
   * so far: the next line typed goes to the next question. False when nothing was pending.
   */
  cancelPending(answer: string): boolean;
  close(): void;
}

export function createLineReader(io: CliIo): LineReader {
  const input = io.stdin ?? process.stdin;
  const terminal = input.isTTY === true && io.stdout.isTTY === true;
  const rl = createInterface({
    input,
    // SAFETY: only a real TTY stream reports isTTY; readline needs it to draw the prompt and echo.
    output: terminal ? (io.stdout as NodeJS.WritableStream) : undefined,
    terminal,
  });
  const queued: string[] = [];
  let waiting: ((line: string | undefined) => void) | undefined;
  let closed = false;
  rl.on("line", (line) => {
    const resolve = waiting;
    waiting = undefined;
    if (resolve) resolve(line);
    else queued.push(line);
  });
  rl.on("close", () => {
    closed = true;
    const resolve = waiting;
    waiting = undefined;
    resolve?.(undefined);
  });
  return {
    terminal,
    next(prompt) {
      if (queued.length > 0) return Promise.resolve(queued.shift());
      if (closed) return Promise.resolve(undefined);
      if (terminal) {
        rl.setPrompt(prompt);
        rl.prompt();
      }
      return new Promise((resolve) => (waiting = resolve));
    },
    onInterrupt(handler) {
      rl.on("SIGINT", handler);
    },
    cancelPending(answer) {
      const resolve = waiting;
      if (!resolve) return false;
      waiting = undefined;
      // Ctrl-U: drop the half-typed line, so it does not become the start of the next answer.
      if (terminal) rl.write(null, { ctrl: true, name: "u" });
      resolve(answer);
      return true;
    },
    close() {
      if (!closed) rl.close();
    },
  };
}
