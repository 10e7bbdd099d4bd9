/**
 * The one frontmatter parser (skills, markdown schedules): a YAML block between `---` fences at
 * the top of a Markdown file, parsed with `yaml`, then the body.
 * @module
 */
import { parse } from "yaml";

export interface Frontmatter {
  /** The block's mapping; empty when there is no block or it is not a mapping. */
  data: Record<string, unknown>;
  /** The text after the block (the whole text when there is none). */
  body: string;
  /** Whether the text started with a frontmatter block. */
  present: boolean;
  /** Why the block could not be read (YAML syntax, or not a `key: value` mapping). */
  error?: string;
}

const BLOCK = /^\uFEFF?---[ \t]*\r?\n([\s\S]*?)\r?\n?---[ \t]*(?:\r?\n|$)/;

export function parseFrontmatter(text: string): Frontmatter {
  const match = BLOCK.exec(text);
  if (!match) return { data: {}, body: text.replace(/^\uFEFF/, ""), present: false };
  const body = text.slice(match[0].length);
  let value: unknown;
  try {
    value = parse(match[1]!, { prettyErrors: true });
  } catch (error) {
    const message = error instanceof Error ? error.message.split("\n")[0]! : String(error);
    // The commonest slip in a schedule: a cron starting with `*` reads as a YAML alias.
    const hint = /^\s*\w+\s*:\s*\*/m.test(match[1]!) ? ' (quote values that start with "*", e.g. cron: "*/5 * * * *")' : "";
    return { data: {}, body, present: true, error: `the frontmatter is not valid YAML: ${message}${hint}` };
  }
  if (value === null || value === undefined) return { data: {}, body, present: true };
  if (typeof value !== "object" || Array.isArray(value)) {
    return { data: {}, body, present: true, error: "the frontmatter must be `key: value` lines (a YAML mapping)" };
  }
  // SAFETY: a YAML mapping parses to a plain object.
  return { data: value as Record<string, unknown>, body, present: true };
}
