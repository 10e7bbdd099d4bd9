/**
 * The frontmatter of a skill file: flat `key: value` lines between `---` fences (quoted or bare
 * strings). Not a YAML parser: nested values are kept as their raw text.
 * @module
 */

export interface Frontmatter {
  fields: Record<string, string>;
  /** The text after the frontmatter (the whole text when there is none). */
  body: string;
  /** Whether the text started with a frontmatter block. */
  present: boolean;
}

export function parseFrontmatter(text: string): Frontmatter {
  const match = /^\uFEFF?---[ \t]*\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/.exec(text);
  if (!match) return { fields: {}, body: text.replace(/^\uFEFF/, ""), present: false };
  const fields: Record<string, string> = {};
  let last: string | undefined;
  for (const raw of match[1]!.split(/\r?\n/)) {
    const pair = /^([A-Za-z_][\w-]*)\s*:\s*(.*)$/.exec(raw);
    if (pair) {
      last = pair[1]!;
      fields[last] = unquote(pair[2]!.trim());
    } else if (last !== undefined && /^\s+\S/.test(raw)) {
      // A folded continuation line (`description: >` and indented text) joins the value.
      fields[last] = `${fields[last] === ">" || fields[last] === "|" ? "" : `${fields[last]} `}${raw.trim()}`.trim();
    }
  }
  return { fields, body: text.slice(match[0].length), present: true };
}

/** The first non-empty line of a Markdown body, without heading marks. */
export function firstLine(body: string): string {
  const line = body.split(/\r?\n/).find((l) => l.trim() !== "") ?? "";
  return line.replace(/^#+\s*/, "").trim();
}

function unquote(value: string): string {
  const double = /^"((?:[^"\\]|\\.)*)"$/.exec(value);
  if (double) return double[1]!.replace(/\\(.)/g, "$1");
  const single = /^'((?:[^']|'')*)'$/.exec(value);
  if (single) return single[1]!.replaceAll("''", "'");
  return value;
}
