/**
 * A syntax error in a project file, told as `file:line:column`, the parser's message and a code
 * frame of the lines around it (docs/guide/agent-projects.md), not only the parser's message.
 * @module
 */
import { readFileSync } from "node:fs";
import { relative } from "node:path";
import { fileURLToPath } from "node:url";

/** Lines shown before and after the failing one. */
const CONTEXT = 2;

/**
 * The error to report for `error` thrown while loading `file`: syntax errors become a new
 * `SyntaxError` whose message has the location and the frame; anything else is returned as is.
 */
export function withSourceLocation(error: unknown, file: string, projectRoot?: string): unknown {
  if (!(error instanceof SyntaxError) || typeof error.stack !== "string") return error;
  const where = locate(error.stack, file);
  if (!where) return error;
  let source: string;
  try {
    source = readFileSync(where.file, "utf8");
  } catch {
    return error;
  }
  const shown = projectRoot ? relative(projectRoot, where.file) : where.file;
  const message = `${shown}:${where.line}:${where.column}: ${error.message}\n${codeFrame(source, where.line, where.column)}`;
  return Object.assign(new SyntaxError(message, { cause: error }), { line: where.line, column: where.column, code: (error as { code?: unknown }).code });
}

/** The lines around `line` with numbers and a caret under `column` (both 1-based). */
export function codeFrame(source: string, line: number, column: number): string {
  const lines = source.split(/\r?\n/);
  const first = Math.max(1, line - CONTEXT);
  const last = Math.min(lines.length, line + CONTEXT);
  const width = String(last).length;
  const out: string[] = [];
  for (let n = first; n <= last; n++) {
    out.push(`${n === line ? ">" : " "} ${String(n).padStart(width)} | ${lines[n - 1] ?? ""}`);
    if (n === line) out.push(`  ${" ".repeat(width)} | ${" ".repeat(Math.max(0, column - 1))}^`);
  }
  return out.join("\n");
}

// --- internals ---

/**
 * Node puts the location on the stack's first line (`/path/file.ts:4`, or a file URL) and a
 * caret line under the source line; the caret's offset is the column.
 */
function locate(stack: string, fallbackFile: string): { file: string; line: number; column: number } | undefined {
  const lines = stack.split("\n");
  const header = /^(.*):(\d+)$/.exec(lines[0] ?? "");
  if (!header) return undefined;
  const raw = header[1]!.replace(/\?.*$/, "");
  const file = raw.startsWith("file:") ? fileURLToPath(raw) : raw || fallbackFile;
  const caret = lines.slice(1, 6).find((text) => /^\s*\^+\s*$/.test(text));
  const column = caret ? caret.indexOf("^") + 1 : 1;
  return { file, line: Number(header[2]), column };
}
