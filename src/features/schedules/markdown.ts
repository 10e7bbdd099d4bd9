/**
 * Markdown schedules (`bot/schedules/<name>.md`): a YAML frontmatter block with `cron` (and
 * optionally `catchUp`), then the prompt.
 * @module
 */
import { parseFrontmatter } from "../../engine/project/frontmatter.ts";
import type { MarkdownSchedule } from "../../base/definitions/schedules.ts";

export interface ParsedMarkdownSchedule {
  /** Present when the file has a usable shape; `validateSchedule` checks the values. */
  definition?: MarkdownSchedule;
  problems: Array<{ severity: "error" | "warning"; code: string; message: string }>;
}

const KNOWN_KEYS = new Set(["cron", "catchUp"]);

export function parseScheduleMarkdown(text: string): ParsedMarkdownSchedule {
  const problems: ParsedMarkdownSchedule["problems"] = [];
  const frontmatter = parseFrontmatter(text);
  if (!frontmatter.present) {
    problems.push({ severity: "error", code: "missing_schedule_cron", message: 'a markdown schedule starts with a frontmatter block holding its cron, e.g. ---\\ncron: "0 9 * * 1-5"\\n---' });
    return { problems };
  }
  if (frontmatter.error !== undefined) {
    problems.push({ severity: "error", code: "invalid_schedule_frontmatter", message: frontmatter.error });
    return { problems };
  }
  const fields: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(frontmatter.data)) {
    if (!KNOWN_KEYS.has(key)) {
      problems.push({ severity: "warning", code: "unknown_schedule_key", message: `frontmatter key ${key} is not used (known keys: cron, catchUp)` });
      continue;
    }
    fields[key] = value;
  }
  const body = frontmatter.body.trim();
  if (fields["cron"] === undefined) {
    problems.push({ severity: "error", code: "missing_schedule_cron", message: "the frontmatter has no cron key" });
    return { problems };
  }
  const definition = { cron: fields["cron"], markdown: body, ...(fields["catchUp"] === undefined ? {} : { catchUp: fields["catchUp"] }) };
  // SAFETY: field types are checked by validateSchedule, which reports them as diagnostics.
  return { definition: definition as MarkdownSchedule, problems };
}
