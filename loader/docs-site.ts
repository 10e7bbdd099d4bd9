/**
 * Renders the documentation site served at `/docs` from the Markdown under `docs/`: the landing
 * page (`docs/index.md`), the guide (`docs/guide/*.md`), the design notes (`docs/design/*.md`) and
 * the generated reference (`docs-reference.ts`), once, at start-up, with a search index the core
 * answers `/docs/search` from. The core only receives the finished pages, because it must not read
 * files.
 * @example
 * const site = await renderDocsSite();
 * createHost({ agents, docs: site });
 * @module
 */
import { readdir, readFile } from "node:fs/promises";
import { basename, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Marked } from "marked";
import type { Token } from "marked";
import { packageFile } from "./package-root.ts";
import { escapeHtml } from "../src/http/escape-html.ts";
import type { DocsSite } from "../src/http/site-types.ts";
import { referencePages } from "./docs-reference.ts";

export interface RenderDocsOptions {
  /** The folder holding `index.md`, `guide/` and `design/`. @default the package's own `docs/` */
  root?: string;
  /**
   * Add the generated reference (routes, events, `defineAgent` keys, modules; see
   * `docs-reference.ts`). @default true for the package's own docs, false for another root
   */
  reference?: boolean;
}

/** Pages keyed by their path below `/docs` (`""` is the index, `guide/cli` is `/docs/guide/cli`). */
export async function renderDocsSite(options: RenderDocsOptions = {}): Promise<DocsSite> {
  const root = options.root ?? fileURLToPath(packageFile("docs/"));
  const reference = options.reference ?? options.root === undefined;
  const sections = await Promise.all(
    SECTIONS.map(async (section) => ({ ...section, sources: await readSection(join(root, section.dir), section.order) })),
  );
  if (reference) sections.push({ dir: "reference", label: "Reference", order: [], sources: await referencePages() });
  const entries = sections.flatMap((section) =>
    section.sources.map((source) => ({ slug: `${section.dir}/${source.name}`, title: titleOf(source.text, source.name), text: source.text })),
  );
  const groups = sections.map((section) => ({
    label: section.label,
    items: entries.filter((entry) => entry.slug.startsWith(`${section.dir}/`)),
  }));
  const marked = createMarked();
  const pages: DocsSite["pages"] = {};
  const index: NonNullable<DocsSite["search"]>["index"] = [];
  for (const entry of entries) {
    pages[entry.slug] = { title: entry.title, html: layout(entry.title, renderNav(groups, entry.slug), renderMarkdown(marked, entry.text, entry.slug)) };
    index.push({ slug: entry.slug, title: entry.title, text: plainText(entry.text) });
  }
  const nav = renderNav(groups, "");
  const home = await readOptional(join(root, "index.md"));
  if (home === undefined) {
    // A root without a landing page: its body lists the pages, as the nav beside it does.
    pages[""] = { title: SITE_TITLE, html: layout(SITE_TITLE, nav, `<h1>${SITE_TITLE}</h1>\n${renderNav(groups, "", false)}`) };
  } else {
    // Links resolve as from `docs/index.md`, so `guide/cli.md` works on GitHub and on the site.
    pages[""] = { title: SITE_TITLE, html: layout(SITE_TITLE, nav, renderMarkdown(marked, home, "index"), true) };
    index.push({ slug: "", title: SITE_TITLE, text: plainText(home) });
  }
  const page = layout(`Search: ${SITE_TITLE}`, renderNav(groups, "search"), SEARCH_RESULTS);
  return { pages, search: { index, page } };
}

// --- internals ---

const SITE_TITLE = "agent-serve documentation";

const SECTIONS = [
  { dir: "guide", label: "Guide", order: ["getting-started", "agent-projects", "http-api", "channels", "slack", "github", "cli"] },
  { dir: "design", label: "Design notes", order: [] as string[] },
];

interface Source {
  name: string;
  text: string;
}

/** The section's Markdown files: the listed names first, the rest alphabetically. */
async function readSection(dir: string, order: readonly string[]): Promise<Source[]> {
  let files: string[];
  try {
    files = (await readdir(dir)).filter((file) => file.endsWith(".md"));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw error;
  }
  const rank = (name: string): number => (order.includes(name) ? order.indexOf(name) : order.length);
  const names = files.map((file) => basename(file, ".md")).sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
  return Promise.all(names.map(async (name) => ({ name, text: await readFile(join(dir, `${name}.md`), "utf8") })));
}

/** A file's text, or `undefined` when there is no such file. */
async function readOptional(file: string): Promise<string | undefined> {
  try {
    return await readFile(file, "utf8");
  } catch (error) {
    // SAFETY: readFile rejects with a Node system error, which carries `code`.
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}

function titleOf(markdown: string, fallback: string): string {
  return /^#\s+(.+?)\s*#*\s*$/m.exec(markdown)?.[1]?.replace(/`/g, "") ?? fallback;
}

function createMarked(): Marked {
  return new Marked({
    gfm: true,
    // Raw HTML in the Markdown is shown as text, never passed through to the page.
    renderer: { html: ({ text }) => escapeHtml(text) },
  });
}

/** A page's Markdown as HTML, its links rewritten as from the page at `slug`. */
function renderMarkdown(marked: Marked, markdown: string, slug: string): string {
  const tokens = marked.lexer(markdown);
  marked.walkTokens(tokens, (token) => rewriteLink(token, slug));
  return marked.parser(tokens);
}

/**
 * A relative link to another Markdown page becomes `/docs/<slug>`, so the same link works on
 * GitHub and on the site; other links stay as written.
 */
function rewriteLink(token: Token, slug: string): void {
  if (token.type !== "link") return;
  const href = token.href;
  if (/^[a-z][a-z0-9+.-]*:/i.test(href) || href.startsWith("/") || href.startsWith("#")) return;
  const resolved = new URL(href, `http://docs.invalid/docs/${slug}.md`);
  if (!resolved.pathname.startsWith("/docs/") || !resolved.pathname.endsWith(".md")) return;
  token.href = `${resolved.pathname.slice(0, -".md".length)}${resolved.hash}`;
}

/** The site's navigation, the current page marked (`aria-current`), with the search form on top. */
function renderNav(groups: { label: string; items: { slug: string; title: string }[] }[], current: string, withSearch = true): string {
  const parts = groups
    .filter((group) => group.items.length > 0)
    .map((group) => {
      const items = group.items
        .map((item) => `<li><a href="/docs/${escapeHtml(item.slug)}"${item.slug === current ? ' aria-current="page"' : ""}>${escapeHtml(item.title)}</a></li>`)
        .join("");
      return `<h2>${escapeHtml(group.label)}</h2><ul>${items}</ul>`;
    });
  // A plain GET form: the pages run no scripts, so search is a page the server renders.
  const search = withSearch
    ? `<form role="search" action="/docs/search" method="get"><input type="search" name="q" placeholder="Search the docs" aria-label="Search the docs"${current === "search" ? ` value="${SEARCH_QUERY}"` : ""}></form>`
    : "";
  return `<nav><p><a href="/docs">${SITE_TITLE}</a></p>${search}${parts.join("")}</nav>`;
}

/** Where the core puts the escaped query and the results in the search page. */
const SEARCH_QUERY = "%AGENT_SERVE_SEARCH_QUERY%";
const SEARCH_RESULTS = "%AGENT_SERVE_SEARCH_RESULTS%";

/** A page's Markdown as searchable text: no markup, code kept. */
function plainText(markdown: string): string {
  return markdown
    .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/[#*_`>|]/g, " ")
    .replace(/\s+/g, " ")
    .trim();
}

/** A page: the nav beside the body; `home` marks the landing page, which a phone shows body first. */
function layout(title: string, nav: string, body: string, home = false): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style></head>
<body${home ? ' class="home"' : ""}>${nav}<main>${body}</main></body></html>
`;
}

const STYLE = [
  "body{margin:0;display:flex;font:16px/1.5 system-ui,sans-serif;color:#222}",
  "nav{width:16rem;flex:none;padding:1rem;background:#f5f5f5;min-height:100vh;box-sizing:border-box}",
  "nav h2{font-size:.8rem;text-transform:uppercase;color:#666;margin:1rem 0 .25rem}",
  "nav ul{list-style:none;padding:0;margin:0}nav li{margin:.25rem 0}",
  "nav a[aria-current=page]{font-weight:600;color:#000;border-left:3px solid #2a6df4;padding-left:.4rem;margin-left:-.7rem}",
  "nav input{width:100%;box-sizing:border-box;padding:.35rem .5rem;font:inherit}",
  "main{padding:1rem 2rem;max-width:52rem;min-width:0}",
  "pre{background:#f5f5f5;padding:.75rem;overflow:auto}code{font-size:.9em}",
  "table{border-collapse:collapse;display:block;overflow-x:auto}th,td{border:1px solid #ddd;padding:.25rem .5rem;text-align:left;vertical-align:top}",
  "mark{background:#fff2a8}",
  // A phone: the nav above the page, not beside it; on the landing page below it, so a first
  // visitor's first screen is the introduction rather than the list of pages.
  "@media (max-width:48rem){body{display:block}nav{width:auto;min-height:0}nav ul{display:flex;flex-wrap:wrap;gap:.25rem 1rem}main{padding:1rem}",
  "body.home{display:flex;flex-direction:column}body.home main{order:-1}}",
].join("");
