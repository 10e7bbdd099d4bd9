/**
 * The playground SPA under `<base>/playground`: files read elsewhere (the core reads no files),
 * answered with headers that confine the page to its own origin. The static files need no auth;
 * every API call the page makes runs the agent's chain like any other client's.
 * @module
 */
import { FastResponse } from "srvx";
import { notFound } from "../base/errors.ts";
import type { PlaygroundSite } from "./site-types.ts";
import { escapeHtml } from "./escape-html.ts";

/** Where the served `index.html` receives the agent's base path (`/hello`, or "" in single mode). */
export const BASE_PLACEHOLDER = "%AGENT_SERVE_BASE%";

const PAGE_HEADERS = {
  "content-type": "text/html; charset=utf-8",
  "cache-control": "no-cache",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  // Model output is untrusted: even if the page rendered it as markup, nothing could run or load.
  "content-security-policy":
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
};

/**
 * Answers a path below one agent's base path (`""` or `/` for the base itself, which redirects to
 * the playground), or returns undefined when it is not a playground path.
 */
export type PlaygroundHandler = (rest: string) => Response | undefined;

/** The handler for one agent at `basePath`; its index page is rendered once, here. */
export function createPlaygroundHandler(site: PlaygroundSite, basePath: string): PlaygroundHandler {
  const page = site.index.replaceAll(BASE_PLACEHOLDER, escapeHtml(basePath));
  const entry = `${basePath}/playground`;
  return (rest) => {
    // The agent's own URL (the one the start-up banner prints) leads to its playground.
    if (rest === "" || rest === "/") return new FastResponse(null, { status: 302, headers: { location: entry, "cache-control": "no-cache" } });
    if (rest === "/playground" || rest === "/playground/") return new FastResponse(page, { headers: PAGE_HEADERS });
    if (!rest.startsWith("/playground/")) return undefined;
    const name = rest.slice("/playground/assets/".length);
    const asset = rest.startsWith("/playground/assets/") && Object.hasOwn(site.assets, name) ? site.assets[name] : undefined;
    if (!asset) throw notFound("not_found", "no such playground file");
    return new FastResponse(asset.body, {
      headers: { "content-type": asset.type, "cache-control": "no-cache", "x-content-type-options": "nosniff" },
    });
  };
}
