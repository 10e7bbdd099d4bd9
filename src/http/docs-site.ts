/**
 * The `/docs` documentation site: pages rendered elsewhere (the core reads no files), answered
 * as HTML with headers that keep the pages inert: no scripts, no sniffing, nothing loaded.
 * @module
 */
import { FastResponse } from "srvx";
import { notFound } from "../base/errors.ts";
import type { DocsSite } from "./site-types.ts";
import { renderSearchPage } from "./docs-search.ts";

const HEADERS = {
  "content-type": "text/html; charset=utf-8",
  "x-content-type-options": "nosniff",
  "content-security-policy": "default-src 'none'; style-src 'unsafe-inline'",
};

/** Whether `pathname` belongs to the site: `/docs` or anything below `/docs/`. */
export function isDocsPath(pathname: string): boolean {
  return pathname === "/docs" || pathname.startsWith("/docs/");
}

/**
 * Answers a docs path with its page, or `/docs/search?q=` with the results (`url` carries the
 * query); an unknown page is 404 `not_found`.
 */
export function createDocsHandler(site: DocsSite): (pathname: string, url?: string) => Response {
  const pages = new Map(Object.entries(site.pages));
  return (pathname, url) => {
    // "/docs", "/docs/" and "/docs/<page>/" name the same pages as without the slash.
    const key = pathname.slice("/docs".length).replace(/^\/+|\/+$/g, "");
    if (key === "search" && site.search) {
      const query = (url === undefined ? null : new URL(url).searchParams.get("q")) ?? "";
      return new FastResponse(renderSearchPage(site.search, query.slice(0, 200)), { headers: HEADERS });
    }
    const page = pages.get(key);
    if (!page) throw notFound("not_found", "no such documentation page");
    return new FastResponse(page.html, { headers: HEADERS });
  };
}
