/** Plain aligned columns for terminal output (widths ignore colour escapes). */
import { visibleLength } from "./style.ts";

/** Rows of cells as lines, every column but the last padded to its widest cell. */
export function table(rows: string[][]): string[] {
  const widths: number[] = [];
  for (const row of rows) row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, visibleLength(cell))));
  return rows.map((row) =>
    row
      .map((cell, i) => (i === row.length - 1 ? cell : cell + " ".repeat((widths[i] ?? 0) - visibleLength(cell))))
      .join("  ")
      .trimEnd(),
  );
}

/** A short relative age ("5s ago", "3m ago", "2h ago", "4d ago") of an ISO time. */
export function age(at: string, now = Date.now()): string {
  const ms = now - new Date(at).getTime();
  if (Number.isNaN(ms)) return at;
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s}s ago`;
  if (s < 3600) return `${Math.floor(s / 60)}m ago`;
  if (s < 86_400) return `${Math.floor(s / 3600)}h ago`;
  return `${Math.floor(s / 86_400)}d ago`;
}
