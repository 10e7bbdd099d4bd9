// @ts-check
/**
 * Replies as Markdown: marked renders, DOMPurify sanitizes (both served from the package's
 * dependencies, see loader/playground-site.ts). Model output is untrusted: raw HTML in it is shown
 * as text, links may only be http(s) or mailto and open in a new tab, images become links, and the
 * page's policy would block scripts and foreign loads even if all that failed.
 * @module
 */
// @ts-expect-error vendored at start-up, not present in this folder
import { Marked } from "./vendor-marked.js";
// @ts-expect-error vendored at start-up, not present in this folder
import DOMPurify from "./vendor-purify.js";

/** @param {string} text */
const escape = (text) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

const marked = new Marked({
  gfm: true,
  breaks: true,
  renderer: {
    /** @param {{text: string}} token */
    html: ({ text }) => escape(text),
    /** @param {{href: string, text: string}} token */
    image: ({ href, text }) => `<a href="${escape(href)}">${escape(text || href)}</a>`,
  },
});

const SAFE_LINK = /^(?:https?:|mailto:)/i;

const purify = DOMPurify();
purify.addHook("afterSanitizeAttributes", (/** @type {Element} */ node) => {
  if (node.tagName !== "A") return;
  const href = node.getAttribute("href") ?? "";
  if (!SAFE_LINK.test(href)) node.removeAttribute("href");
  else {
    node.setAttribute("target", "_blank");
    node.setAttribute("rel", "noopener noreferrer");
  }
});

/**
 * Fills `element` with `text` rendered as sanitized Markdown.
 * @param {HTMLElement} element
 * @param {string} text
 */
export function renderMarkdown(element, text) {
  const html = /** @type {string} */ (marked.parse(text, { async: false }));
  element.innerHTML = purify.sanitize(html, { FORBID_TAGS: ["style", "form", "input", "button", "img", "iframe"], FORBID_ATTR: ["style"] });
}
