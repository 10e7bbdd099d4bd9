/**
 * Mount slugs (docs/guide/http-api.md "Route layout"): a letter or digit, then letters, digits, `_`
 * or `-`.
 * `v1`, `playground` and `docs` are reserved because host-level routes live there.
 * @module
 */

export const RESERVED_SLUGS: ReadonlySet<string> = new Set(["v1", "playground", "docs"]);

const SLUG = /^[A-Za-z0-9][A-Za-z0-9_-]*$/;

/** Why `slug` cannot be mounted, or `undefined` when it can. */
export function slugProblem(slug: string): string | undefined {
  if (!SLUG.test(slug)) {
    return `slug "${slug}" is invalid: it must start with a letter or digit and contain only letters, digits, "_" or "-"`;
  }
  if (RESERVED_SLUGS.has(slug)) return `slug "${slug}" is reserved (v1, playground and docs are host routes)`;
  return undefined;
}
