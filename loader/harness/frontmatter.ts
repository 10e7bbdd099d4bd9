/**
 * The frontmatter of a skill file, read with the project's one frontmatter parser
 * (`src/engine/project/frontmatter.ts`, YAML): string fields only, since a skill's keys (`name`,
 * `description`) are text. A block that is not valid YAML reads as no fields.
 * @module
 */
import { parseFrontmatter as parseYamlFrontmatter } from "../../src/engine/project/frontmatter.ts";

export interface Frontmatter {
  fields: Record<string, string>;
  /** The text after the frontmatter (the whole text when there is none). */
  body: string;
  /** Whether the text started with a frontmatter block. */
  present: boolean;
}

export function parseFrontmatter(text: string): Frontmatter {
  const parsed = parseYamlFrontmatter(text);
  const fields: Record<string, string> = {};
  for (const [key, value] of Object.entries(parsed.data)) {
    if (typeof value === "string") fields[key] = value.trim();
    else if (typeof value === "number" || typeof value === "boolean") fields[key] = String(value);
  }
  return { fields, body: parsed.body, present: parsed.present };
}

/** The first non-empty line of a Markdown body, without heading marks. */
export function firstLine(body: string): string {
  const line = body.split(/\r?\n/).find((l) => l.trim() !== "") ?? "";
  return line.replace(/^#+\s*/, "").trim();
}
