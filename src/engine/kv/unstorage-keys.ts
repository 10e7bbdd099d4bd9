/**
 * Keys of the kv facade to unstorage keys and back (docs/design/agent-sdk-compatibility.md
 * "`ctx.host.kv`"). unstorage rewrites keys before any driver sees them: `/` and `\` become `:`,
 * `?…` is dropped, `::` collapses, leading and trailing `:` go, `.`/`..` parts are refused and
 * `<key>$` holds the meta of `<key>`. So `drafts/launch` and `drafts:launch` would be one entry.
 *
 * Each character unstorage would rewrite is written `%` and two hex digits instead (`drafts/launch`
 * is `drafts%2Flaunch`); a `%` is escaped only where it starts one of these codes. Every other key,
 * `user:42` and any key the facade accepted before `/` was allowed, is its own unstorage key, so
 * entries stored earlier read back unchanged.
 * @module
 */

/** The characters unstorage rewrites, by their escape code. */
const CODES: Record<string, string> = { "/": "2F", "\\": "5C", "?": "3F", ":": "3A", $: "24", ".": "2E", "%": "25" };

/** An escape the decoder turns back into its character; a `%` before anything else is literal. */
const ESCAPE = /%(2F|5C|3F|3A|24|2E|25)/g;
const STARTS_WITH_ESCAPE = /^%(2F|5C|3F|3A|24|2E|25)/;

/**
 * The unstorage key of a facade key: a key unstorage keeps as it is, different for every
 * different facade key.
 * @example
 * toUnstorageKey("drafts/launch"); // "drafts%2Flaunch"
 * toUnstorageKey("user:42"); // "user:42"
 */
export function toUnstorageKey(key: string): string {
  let out = "";
  for (let i = 0; i < key.length; i++) {
    const char = key[i]!;
    out += rewritten(key, i) ? `%${CODES[char]}` : char;
  }
  // unstorage refuses `.` and `..` parts (the parts between the `:` that remain).
  return out
    .split(":")
    .map((part) => (part === "." || part === ".." ? part.replaceAll(".", "%2E") : part))
    .join(":");
}

/** The facade key an unstorage key written by {@link toUnstorageKey} stands for. */
export function fromUnstorageKey(key: string): string {
  return key.replace(ESCAPE, (_, code: string) => String.fromCharCode(Number.parseInt(code, 16)));
}

// --- internals ---

/** Whether unstorage would change the character at `i`, or (a `%`) it would read as an escape. */
function rewritten(key: string, i: number): boolean {
  const char = key[i];
  if (char === "/" || char === "\\" || char === "?") return true;
  if (char === ":") return i === 0 || i === key.length - 1 || key[i - 1] === ":" || key[i + 1] === ":";
  if (char === "$") return i === key.length - 1;
  if (char === "%") return STARTS_WITH_ESCAPE.test(key.slice(i, i + 3));
  return false;
}
