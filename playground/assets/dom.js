// @ts-check
/**
 * DOM building without markup strings. Model output and server data are untrusted, so text only
 * ever lands in `textContent`, and attributes that could run code or carry inline style (which
 * the page's CSP refuses anyway) are rejected outright.
 * @module
 */

/**
 * @typedef {object} Props
 * @property {string} [className]
 * @property {string} [text] Set as `textContent`.
 * @property {Record<string, string>} [attrs] Plain attributes (`aria-*`, `data-*`, `type`, ...).
 * @property {{[K in keyof HTMLElementEventMap]?: (event: HTMLElementEventMap[K]) => void}} [on]
 * @property {boolean} [hidden]
 */

/** @typedef {Node | string | null | undefined | false} Child */

/**
 * Creates an element.
 * @example
 * h("button", { text: "Send", attrs: { type: "submit" }, on: { click: send } })
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {Props} [props]
 * @param {...Child} children
 * @returns {HTMLElementTagNameMap[K]}
 */
export function h(tag, props = {}, ...children) {
  const el = document.createElement(tag);
  if (props.className) el.className = props.className;
  if (props.text !== undefined) el.textContent = props.text;
  if (props.hidden) el.hidden = true;
  for (const [name, value] of Object.entries(props.attrs ?? {})) {
    const lower = name.toLowerCase();
    if (lower === "style" || lower.startsWith("on")) throw new Error(`refusing attribute ${name}`);
    el.setAttribute(name, value);
  }
  for (const [type, listener] of Object.entries(props.on ?? {})) {
    // SAFETY: `on` is keyed by event type and each listener takes that type's event.
    el.addEventListener(type, /** @type {EventListener} */ (listener));
  }
  append(el, children);
  return el;
}

/**
 * Appends children, skipping empty ones; strings become text nodes.
 * @param {Node} parent
 * @param {Child[]} children
 */
export function append(parent, children) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    parent.appendChild(typeof child === "string" ? document.createTextNode(child) : child);
  }
}

/**
 * Pretty JSON for display; values JSON cannot hold fall back to their string form.
 * @param {unknown} value
 * @returns {string}
 */
export function jsonText(value) {
  try {
    return JSON.stringify(value, null, 2) ?? String(value);
  } catch {
    return String(value);
  }
}

/**
 * A tool result for reading: strings as they are, `{content: [{type: "text", text}]}` envelopes
 * (the form errors take) as their text, anything else as JSON.
 * @param {unknown} value
 * @returns {string}
 */
export function outputText(value) {
  if (typeof value === "string") return value;
  if (typeof value === "object" && value !== null && "content" in value && Array.isArray(value.content)) {
    /** @type {unknown[]} */
    const parts = value.content;
    const texts = parts.map((part) =>
      typeof part === "object" && part !== null && "type" in part && part.type === "text" && "text" in part && typeof part.text === "string" ? part.text : undefined,
    );
    if (texts.length > 0 && texts.every((text) => text !== undefined)) return texts.join("\n");
  }
  return jsonText(value);
}

/**
 * A timestamp in the reader's locale, or the raw text when it does not parse.
 * @param {string | undefined} iso
 * @returns {string}
 */
export function formatTime(iso) {
  if (!iso) return "";
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleString();
}

/**
 * The message of anything thrown.
 * @param {unknown} error
 * @returns {string}
 */
export function errorMessage(error) {
  if (error instanceof Error && error.message) return error.message;
  return typeof error === "string" && error ? error : "something went wrong";
}

/**
 * An `role="alert"` line that shows an error message and hides itself when cleared.
 * @returns {{element: HTMLElement, show(error: unknown): void, clear(): void}}
 */
export function errorLine() {
  const element = h("p", { className: "error-line", attrs: { role: "alert" }, hidden: true });
  return {
    element,
    show(error) {
      element.textContent = errorMessage(error);
      element.hidden = false;
    },
    clear() {
      element.textContent = "";
      element.hidden = true;
    },
  };
}

/**
 * Whether `el` is scrolled to (nearly) its bottom: views keep following new content only then,
 * so reading further up is not interrupted.
 * @param {HTMLElement} el
 * @returns {boolean}
 */
export function isNearBottom(el) {
  return el.scrollHeight - el.scrollTop - el.clientHeight < 48;
}
