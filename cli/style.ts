/**
 * Terminal styling: ANSI colours only when the stream is a terminal and `NO_COLOR` is unset
 * (https://no-color.org: any non-empty value disables colour).
 * @module
 */
import { styleText } from "node:util";
import type { Writable } from "./io.ts";

export interface Style {
  /** Whether escape codes are written at all. */
  enabled: boolean;
  bold(text: string): string;
  dim(text: string): string;
  red(text: string): string;
  green(text: string): string;
  yellow(text: string): string;
  cyan(text: string): string;
}

/** The style for writing to `stream` under `env`. */
export function createStyle(stream: Writable, env: Record<string, string | undefined>): Style {
  const enabled = stream.isTTY === true && !env.NO_COLOR;
  // The decision is ours (the injected stream and env), so styleText must not check process.stdout.
  const paint = (format: "bold" | "dim" | "red" | "green" | "yellow" | "cyan") => (text: string): string =>
    enabled ? styleText(format, text, { validateStream: false }) : text;
  return {
    enabled,
    bold: paint("bold"),
    dim: paint("dim"),
    red: paint("red"),
    green: paint("green"),
    yellow: paint("yellow"),
    cyan: paint("cyan"),
  };
}

/** Strips ANSI escapes, for width computations. */
export function visibleLength(text: string): number {
  // oxlint-disable-next-line no-control-regex -- matching the escapes is the point
  return text.replace(/\u001B\[[0-9;]*m/g, "").length;
}
