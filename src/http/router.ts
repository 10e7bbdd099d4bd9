/**
 * The one matcher behind every route table of the host (docs/design/routing.md): patterns compiled
 * once, a request matched in table order. It knows paths and methods only; what runs on a match is
 * ./run-route.ts's business.
 * @module
 */
import type { RouteMethod } from "../base/route.ts";

/** What the router reads of a route. */
export interface RouterEntry {
  method: RouteMethod;
  path: string;
  /** Every method reaches this entry (its handler answers 405 itself). */
  everyMethod?: boolean;
}

export interface RouterOptions {
  /**
   * Exact paths. Otherwise repeated and trailing slashes are ignored, as the agent routes always
   * have (docs/design/routing.md "Patterns"). @default false
   */
  strict?: boolean;
}

/** A route and its raw (still percent-encoded) parameters, or the methods its path takes. */
export type RouteMatch<T> = { route: T; params: Record<string, string> } | { route?: undefined; allow: string[] };

export interface Router<T extends RouterEntry> {
  /** The first route for `method` and `path` in table order; else the methods of the first path that matches; else undefined. */
  match(method: string, path: string): RouteMatch<T> | undefined;
}

export function createRouter<T extends RouterEntry>(routes: readonly T[], options: RouterOptions = {}): Router<T> {
  const compiled = routes.map((route) => ({ route, matches: compilePattern(route.path, options.strict ?? false) }));
  const byPath = methodsByPath(routes, options.strict ?? false);
  return {
    match(method, path) {
      for (const { route, matches } of compiled) {
        if (!takes(route, method)) continue;
        const params = matches(path);
        if (params) return { route, params };
      }
      for (const { matches, allow } of byPath) if (matches(path)) return { allow };
      return undefined;
    },
  };
}

// --- internals ---

/** HEAD answers as GET; the host drops the body (docs/guide/http-api.md). */
const takes = (route: RouterEntry, method: string): boolean =>
  route.everyMethod === true || route.method === method || (method === "HEAD" && route.method === "GET");

/** The parameters of a path the pattern matches, or undefined. */
type Matcher = (path: string) => Record<string, string> | undefined;

/**
 * `:name` is one segment, `*` the rest; `.` is literal. Unless strict, repeated slashes collapse and
 * trailing ones are ignored. A strict static path is a string comparison: host routes run on every
 * request (bench/README.md).
 */
function compilePattern(path: string, strict: boolean): Matcher {
  if (strict && !/[:*]/.test(path)) return (candidate) => (candidate === path ? {} : undefined);
  const source = (strict ? path : path.replace(/\/+(\/|$)/g, "$1"))
    .replace(/(\/?\.?):(\w+)/g, "($1(?<$2>[^$1/]+?))")
    .replace(/\./g, "\\.")
    .replace(/(\/?)\*/g, "($1.*)?");
  const pattern = new RegExp(`^${source}${strict ? "" : "/*"}$`);
  return (candidate) => {
    const found = pattern.exec(candidate);
    return found ? { ...found.groups } : undefined;
  };
}

/** The 405 table: each distinct path in first-seen order with the methods it takes (GET brings HEAD). */
function methodsByPath(routes: readonly RouterEntry[], strict: boolean): Array<{ matches: Matcher; allow: string[] }> {
  const byPath = new Map<string, string[]>();
  for (const route of routes) {
    const methods = route.method === "GET" ? ["GET", "HEAD"] : [route.method];
    byPath.set(route.path, [...(byPath.get(route.path) ?? []), ...methods]);
  }
  return [...byPath].map(([path, allow]) => ({ matches: compilePattern(path, strict), allow }));
}
