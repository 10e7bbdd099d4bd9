/**
 * Terminal styling: ANSI colours only when the stream is a terminal and `NO_COLOR` is unset
 * (https://no-color.org: any non-empty value disables colour).
 * @module
 */
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
  const paint = (open: number, close: number) => (text: string): string =>
    enabled ? `\u001B[${open}m${text}\u001B[${close}m` : text;
  return {
    enabled,
    bold: paint(1, 22),
    dim: paint(2, 22),
    red: paint(31, 39),
    green: paint(32, 39),
    yellow: paint(33, 39),
    cyan: paint(36, 39),
  };
}

/** Strips ANSI escapes, for width computations. */
export function visibleLength(text: string): number {
  // oxlint-disable-next-line no-control-regex -- matching the escapes is the point
  return text.replace(/\u001B\[[0-9;]*m/g, "").length;
}
