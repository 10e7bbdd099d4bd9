/**
 * Duration strings of reminders (docs/design/timed-work.md "Reminders": `20m`, `2h`): one or more
 * `<number><unit>` parts, units `s`, `m`, `h`, `d` (and `ms`), as in `1h30m`.
 * @module
 */

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const PART = /(\d+(?:\.\d+)?)(ms|s|m|h|d)/gy;

/** Milliseconds of `text`, or undefined when it is not a duration string. */
export function parseDuration(text: unknown): number | undefined {
  if (typeof text !== "string") return undefined;
  const source = text.replace(/\s+/g, "").toLowerCase();
  if (source === "" || source.length > 64) return undefined;
  PART.lastIndex = 0;
  let total = 0;
  let end = 0;
  for (let match = PART.exec(source); match; match = PART.exec(source)) {
    total += Number(match[1]) * UNIT_MS[match[2]!]!;
    end = PART.lastIndex;
  }
  if (end !== source.length || !Number.isFinite(total)) return undefined;
  return Math.round(total);
}
