/**
 * Unknown keys in definitions (`defineAgent({ modle })`) are warnings that name the key and, when
 * one is close, the key that was probably meant: nothing the host ignores is ignored silently.
 * @module
 */
import { closest, distance } from "fastest-levenshtein";
import type { Diagnostic } from "../../base/definitions/project.ts";

/** The closest of `known` to `key`, when it is close enough to be a likely typo. */
export function didYouMean(key: string, known: readonly string[]): string | undefined {
  if (known.length === 0) return undefined;
  const best = closest(key, known);
  const limit = Math.max(2, Math.floor(best.length / 3));
  return distance(key.toLowerCase(), best.toLowerCase()) <= limit ? best : undefined;
}

/**
 * Warnings for the own keys of `value` that are not in `known`. `what` names the definition in
 * the message (`agent config`, `tool lookup`); `ignored` lists keys other hosts read that this one
 * knows and ignores (an info diagnostic says so instead).
 */
export function unknownKeyDiagnostics(
  value: Record<string, unknown>,
  known: readonly string[],
  what: string,
  file: string | undefined,
  ignored: Readonly<Record<string, string>> = {},
): Diagnostic[] {
  const diagnostics: Diagnostic[] = [];
  for (const key of Object.keys(value)) {
    if (known.includes(key)) continue;
    const where = file === undefined ? {} : { file };
    if (Object.hasOwn(ignored, key)) {
      diagnostics.push({ severity: "info", code: "ignored_key", message: `${what}: ${key} is ignored here: ${ignored[key]}`, ...where });
      continue;
    }
    const suggestion = didYouMean(key, known);
    diagnostics.push({
      severity: "warning",
      code: "unknown_key",
      message: `${what}: unknown key "${key}"${suggestion ? ` (did you mean "${suggestion}"?)` : ""}; it is ignored (known keys: ${known.join(", ")})`,
      ...where,
    });
  }
  return diagnostics;
}
