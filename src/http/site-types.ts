/**
 * The documentation site and the playground as the caller hands them to the host (the core reads
 * no files).
 * @module
 */

/** One rendered page of the documentation site. */
export interface DocsPage {
  title: string;
  /** A whole HTML document. */
  html: string;
}

/** The documentation site: pages keyed by their path below `/docs` (`""` is the index). */
export interface DocsSite {
  pages: Record<string, DocsPage>;
  /**
   * `/docs/search?q=`: the pages as plain text, and the results page, in which the core replaces
   * `%AGENT_SERVE_SEARCH_QUERY%` and `%AGENT_SERVE_SEARCH_RESULTS%`. Absent: no search.
   */
  search?: { index: Array<{ slug: string; title: string; text: string }>; page: string };
}

/** The playground SPA's files, read by the caller (the core reads no files). */
export interface PlaygroundSite {
  /** The page; every `%AGENT_SERVE_BASE%` in it becomes the agent's base path ("" in single mode). */
  index: string;
  /** Files served under `<base>/playground/assets/<name>`, by name (`app.js`). */
  assets: Record<string, PlaygroundAsset>;
}

export interface PlaygroundAsset {
  body: string | Uint8Array<ArrayBuffer>;
  /** The content-type header, e.g. `text/javascript; charset=utf-8`. */
  type: string;
}
