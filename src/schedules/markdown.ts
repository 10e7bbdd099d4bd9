/**
 * Markdown schedules (`bot/schedules/<name>.md`): a small frontmatter block with `cron` (and
 * optionally `catchUp`), then the prompt. Only flat `key: value` lines are read; this is not a
 * YAML parser and does not pretend to be one.
 * @module
 */
import type { MarkdownSchedule } from "./types.ts";

export interface ParsedMarkdownSchedule {
  /** Present when the file has a usable shape; `validateSchedule` checks the values. */
  definition?: MarkdownSchedule;
  problems: Array<{ severity: "error" | "warning"; code: string; message: string }>;
}

const KNOWN_KEYS = new Set(["cron", "catchUp"]);

export function parseScheduleMarkdown(text: string): ParsedMarkdownSchedule {
  const problems: ParsedMarkdownSchedule["problems"] = [];
  const match = /^\uFEFF?---[ \t]*\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/.exec(text);
  if (!match) {
    problems.push({ severity: "error", code: "missing_schedule_cron", message: 'a markdown schedule starts with a frontmatter block holding its cron, e.g. ---\\ncron: "0 9 * * 1-5"\\n---' });
    return { problems };
  }
  const fields: Record<string, string | boolean> = {};
  for (const [index, raw] of match[1]!.split(/\r?\n/).entries()) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#")) continue;
    const pair = /^([A-Za-z_][\w-]*)\s*:\s*(.*)$/.exec(line);
    if (!pair) {
      problems.push({ severity: "error", code: "invalid_schedule_frontmatter", message: `frontmatter line ${index + 1} is not "key: value": ${JSON.stringify(line)}` });
      continue;
    }
    const key = pair[1]!;
    if (!KNOWN_KEYS.has(key)) {
      problems.push({ severity: "warning", code: "unknown_schedule_key", message: `frontmatter key ${key} is not used (known keys: cron, catchUp)` });
      continue;
    }
    fields[key] = scalar(pair[2]!);
  }
  const body = text.slice(match[0].length).trim();
  if (fields.cron === undefined) {
    problems.push({ severity: "error", code: "missing_schedule_cron", message: "the frontmatter has no cron key" });
    return { problems };
  }
  const definition = { cron: fields.cron, markdown: body, ...(fields.catchUp === undefined ? {} : { catchUp: fields.catchUp }) };
  // SAFETY: field types are checked by validateSchedule, which reports them as diagnostics.
  return { definition: definition as MarkdownSchedule, problems };
}

// --- internals ---

/** A quoted string, `true`/`false`, or the bare text (a trailing ` # comment` removed). */
function scalar(raw: string): string | boolean {
  const value = raw.trim();
  const quoted = /^"((?:[^"\\]|\\.)*)"\s*(?:#.*)?$/.exec(value) ?? /^'((?:[^']|'')*)'\s*(?:#.*)?$/.exec(value);
  if (quoted) return value.startsWith('"') ? quoted[1]!.replace(/\\(.)/g, "$1") : quoted[1]!.replaceAll("''", "'");
  const bare = value.replace(/\s+#.*$/, "");
  if (bare === "true") return true;
  if (bare === "false") return false;
  return bare;
}
