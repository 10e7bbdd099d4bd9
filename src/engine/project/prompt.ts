/**
 * Template tag that dedents a multi-line prompt, keeping blank lines and relative indentation.
 * @example
 * const description = prompt`
 *   Look up the weather.
 *     Use metric units.
 * `; // "Look up the weather.\n  Use metric units."
 */
export function prompt(strings: TemplateStringsArray, ...values: unknown[]): string {
  const raw = strings.reduce((out, part, i) => out + part + (i < values.length ? String(values[i]) : ""), "");
  const lines = raw.replace(/^\n/, "").replace(/\n[ \t]*$/, "").split("\n");
  const indents = lines.filter((line) => line.trim() !== "").map((line) => /^[ \t]*/.exec(line)?.[0].length ?? 0);
  const strip = indents.length > 0 ? Math.min(...indents) : 0;
  return lines.map((line) => line.slice(Math.min(strip, line.length))).join("\n");
}

/** The same text as lines. */
prompt.lines = (strings: TemplateStringsArray, ...values: unknown[]): string[] => prompt(strings, ...values).split("\n");
