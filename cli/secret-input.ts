/**
 * Reading a secret: all of stdin when it is a pipe, else a hidden prompt on the terminal (raw
 * mode, nothing echoed, backspace edits, Ctrl-C cancels).
 * @module
 */
import { CommandError } from "./io.ts";
import type { CliIo } from "./io.ts";

export async function readSecret(io: CliIo, prompt: string): Promise<string> {
  const input = io.stdin ?? process.stdin;
  if (input.isTTY !== true || !input.setRawMode) {
    let text = "";
    input.setEncoding("utf8");
    for await (const chunk of input) text += String(chunk);
    return text.trim();
  }
  io.stderr.write(prompt);
  input.setRawMode(true);
  input.setEncoding("utf8");
  input.resume();
  try {
    return await new Promise<string>((resolve, reject) => {
      let secret = "";
      const onData = (chunk: string | Buffer): void => {
        for (const char of String(chunk)) {
          if (char === "\r" || char === "\n" || char === "\u0004") {
            input.off("data", onData);
            resolve(secret.trim());
            return;
          }
          if (char === "\u0003") {
            input.off("data", onData);
            reject(new CommandError("cancelled"));
            return;
          }
          if (char === "\u007F" || char === "\b") secret = secret.slice(0, -1);
          else if (char >= " ") secret += char;
        }
      };
      input.on("data", onData);
    });
  } finally {
    input.setRawMode(false);
    input.pause();
    io.stderr.write("\n");
  }
}

/** A credential shown without giving it away: a short prefix and the last four characters. */
export function maskSecret(secret: string): string {
  if (secret.length < 12) return "****";
  return `${secret.slice(0, 3)}…${secret.slice(-4)}`;
}
