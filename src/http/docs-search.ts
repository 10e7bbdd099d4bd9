/**
 * Search over the docs site (`/docs/search?q=`): every word of the query must occur in a page;
 * pages rank by title hits, then by how often the words occur. The results page is rendered
 * here because the pages run no scripts.
 * @module
 */
import type { DocsSite } from "./site-types.ts";
import { escapeHtml } from "./escape-html.ts";

type SearchIndex = NonNullable<DocsSite["search"]>["index"];

const MAX_RESULTS = 30;

export interface DocsHit {
  slug: string;
  title: string;
  /** Text around the first hit. */
  snippet: string;
  score: number;
}

export function searchDocs(index: SearchIndex, query: string): DocsHit[] {
  const words = query.toLowerCase().split(/\s+/).filter((word) => word.length > 0).slice(0, 10);
  if (words.length === 0) return [];
  const hits: DocsHit[] = [];
  for (const page of index) {
    const text = page.text.toLowerCase();
    const title = page.title.toLowerCase();
    if (!words.every((word) => text.includes(word) || title.includes(word))) continue;
    let score = 0;
    for (const word of words) score += (title.includes(word) ? 100 : 0) + occurrences(text, word);
    const at = Math.max(0, Math.min(...words.map((word) => text.indexOf(word)).filter((i) => i >= 0)));
    const start = Math.max(0, at - 60);
    const snippet = `${start > 0 ? "…" : ""}${page.text.slice(start, at + 140)}${at + 140 < page.text.length ? "…" : ""}`;
    hits.push({ slug: page.slug, title: page.title, snippet, score });
  }
  return hits.sort((a, b) => b.score - a.score || a.title.localeCompare(b.title)).slice(0, MAX_RESULTS);
}

/** The results page: the site's search page with the query and the hits filled in. */
export function renderSearchPage(search: NonNullable<DocsSite["search"]>, query: string): string {
  const hits = searchDocs(search.index, query);
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  const list = hits
    .map((hit) => `<li><a href="/docs/${escapeHtml(hit.slug)}">${escapeHtml(hit.title)}</a><br><small>${highlight(hit.snippet, words)}</small></li>`)
    .join("");
  const heading = query.trim() === "" ? "<h1>Search</h1>" : `<h1>${hits.length} result${hits.length === 1 ? "" : "s"} for “${escapeHtml(query)}”</h1>`;
  const body = `${heading}${hits.length > 0 ? `<ol>${list}</ol>` : query.trim() === "" ? "" : "<p>No page has every word. Try fewer words.</p>"}`;
  return search.page.replaceAll("%AGENT_SERVE_SEARCH_QUERY%", escapeHtml(query)).replace("%AGENT_SERVE_SEARCH_RESULTS%", body);
}

// --- internals ---

function occurrences(text: string, word: string): number {
  let count = 0;
  for (let at = text.indexOf(word); at !== -1 && count < 1000; at = text.indexOf(word, at + word.length)) count++;
  return count;
}

/** Escapes the snippet and marks the query's words in it. */
function highlight(snippet: string, words: string[]): string {
  let html = escapeHtml(snippet);
  for (const word of words) {
    const escaped = escapeHtml(word).replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    if (escaped) html = html.replace(new RegExp(`(${escaped})`, "gi"), "<mark>$1</mark>");
  }
  return html;
}
