/**
 * The matchers of `t.check(value, matcher)`: `includes`, `matches` and `satisfies`.
 * @module
 */
import type { StandardSchema } from "../../base/validate.ts";
import type { Matcher } from "../../base/definitions/evals.ts";
import { errorMessage } from "../../base/errors.ts";

/**
 * A string that contains `expected` (a substring, or a match of the pattern), or an array with an
 * element that is `expected` (or a string matching the pattern).
 * @example
 * await t.check(t.reply, includes(/order A1/i));
 */
export function includes(expected: string | RegExp): Matcher<unknown> {
  const label = `includes(${typeof expected === "string" ? JSON.stringify(expected) : String(expected)})`;
  const hit = (value: unknown): boolean =>
    typeof value === "string" && (typeof expected === "string" ? value.includes(expected) : patternMatches(expected, value));
  return {
    label,
    test(value) {
      if (typeof value === "string") {
        return hit(value) ? { pass: true } : { pass: false, message: `expected ${preview(value)} to match ${label}` };
      }
      if (Array.isArray(value)) {
        return value.some(hit) ? { pass: true } : { pass: false, message: `no element of ${preview(value)} matches ${label}` };
      }
      return { pass: false, message: `${label} needs a string or an array, got ${preview(value)}` };
    },
  };
}

/**
 * A value the Standard Schema (valibot, zod, arktype) accepts.
 * @example
 * await t.check(JSON.parse(t.reply), matches(v.object({ total: v.number() })));
 */
export function matches(schema: StandardSchema): Matcher<unknown> {
  const label = `matches(${schema["~standard"].vendor} schema)`;
  return {
    label,
    async test(value) {
      const result = await schema["~standard"].validate(value);
      if (!result.issues) return { pass: true };
      const first = result.issues[0];
      const path = first?.path?.map((segment) => String(typeof segment === "object" ? segment.key : segment)).join(".");
      return { pass: false, message: `${preview(value)} does not match the schema${path ? ` at ${path}` : ""}: ${first?.message ?? "invalid"}` };
    },
  };
}

/**
 * A value for which `predicate` returns true (or resolves to true); `label` names it in failures.
 * @example
 * await t.check(t.reply, satisfies((reply) => reply.length < 200, "a short reply"));
 */
export function satisfies<T>(predicate: (value: T) => boolean | Promise<boolean>, label: string): Matcher<T> {
  return {
    label: `satisfies(${label})`,
    async test(value) {
      try {
        return (await predicate(value)) === true ? { pass: true } : { pass: false, message: `expected ${preview(value)} to be ${label}` };
      } catch (error) {
        return { pass: false, message: `${label} threw: ${errorMessage(error)}` };
      }
    },
  };
}

/** A short printable form of a value for failure messages. */
export function preview(value: unknown, max = 200): string {
  let text: string;
  try {
    text = typeof value === "string" ? JSON.stringify(value) : (JSON.stringify(value) ?? String(value));
  } catch {
    text = String(value);
  }
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

// --- internals ---

/** `test` on a global or sticky pattern moves `lastIndex`; a copy keeps the caller's pattern as given. */
function patternMatches(pattern: RegExp, text: string): boolean {
  return new RegExp(pattern.source, pattern.flags).test(text);
}
