/**
 * The partial deep match of `t.calledTool(name, {input})`: objects match on the keys the expected
 * value names (recursively), arrays element by element with the same length, everything else by
 * `Object.is`.
 */
export function partialMatch(actual: unknown, expected: unknown): boolean {
  if (Array.isArray(expected)) {
    return Array.isArray(actual) && actual.length === expected.length && expected.every((item, i) => partialMatch(actual[i], item));
  }
  if (isPlainObject(expected)) {
    if (!isPlainObject(actual)) return false;
    return Object.entries(expected).every(([key, value]) => Object.hasOwn(actual, key) && partialMatch(actual[key], value));
  }
  return Object.is(actual, expected);
}

// --- internals ---

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
