/**
 * The webhook endpoints of `bot/agent.ts` checked once, when the host is built
 * (docs/guide/webhooks.md "Targets"): an absolute http(s) URL without credentials, never a
 * loopback, private or link-local address unless the host runs with `--dev` or the endpoint sets
 * `allowPrivateTarget` (the rule A2A push targets follow, docs/guide/a2a.md "Push
 * notifications"), at least one event, a `whsec_` secret, and ids unique within the agent.
 * @module
 */
import type { WebhookEndpoint } from "../../base/definitions/webhooks.ts";
import { createError } from "../../base/errors.ts";
import { isPrivateHost } from "../../base/private-host.ts";
import { secretKeyBytes } from "./sign.ts";

/** An endpoint ready to post to. */
export interface ResolvedEndpoint {
  id: string;
  url: string;
  events: ReadonlySet<string>;
  key: Uint8Array<ArrayBuffer>;
}

const ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

/** Every endpoint resolved, or an error naming the first one that is not valid. */
export function resolveEndpoints(endpoints: readonly WebhookEndpoint[], dev: boolean): ResolvedEndpoint[] {
  const resolved: ResolvedEndpoint[] = [];
  for (const [position, endpoint] of endpoints.entries()) {
    const fail = (why: string): Error => createError("webhooks", `webhooks[${position}] ${why}`);
    let url: URL;
    try {
      url = new URL(endpoint.url);
    } catch {
      throw fail("url is not an absolute URL");
    }
    if (url.protocol !== "https:" && url.protocol !== "http:") throw fail("url must be http or https");
    if (url.username || url.password) throw fail("url must not carry credentials");
    if (!dev && endpoint.allowPrivateTarget !== true && isPrivateHost(url.hostname)) {
      throw fail(`url targets ${url.hostname} (loopback, private or link-local): allowed only under --dev or with allowPrivateTarget`);
    }
    if (!Array.isArray(endpoint.events) || endpoint.events.length === 0 || !endpoint.events.every((type) => typeof type === "string" && type !== "")) {
      throw fail("events must name at least one event type (or \"*\")");
    }
    const key = typeof endpoint.secret === "string" ? secretKeyBytes(endpoint.secret) : undefined;
    if (!key) throw fail("secret must be whsec_ followed by the base64 key");
    const id = endpoint.id ?? defaultId(url.href);
    if (!ID_PATTERN.test(id)) throw fail("id must be 1 to 64 letters, digits, - or _");
    if (resolved.some((other) => other.id === id)) throw fail(`id ${id} is taken by another endpoint; give each its own id`);
    resolved.push({ id, url: url.href, events: new Set(endpoint.events), key });
  }
  return resolved;
}

// --- internals ---

/** FNV-1a of the URL: stable across restarts, so the cursor is found again. */
function defaultId(url: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < url.length; i++) {
    hash ^= url.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return `wh_${hash.toString(16).padStart(8, "0")}`;
}
