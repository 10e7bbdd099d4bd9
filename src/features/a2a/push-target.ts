/**
 * Where a push notification may go (docs/guide/a2a.md "Push notifications"): http or https, and
 * never a loopback, private or link-local address unless the server runs with `--dev`, so a
 * caller cannot make the server post into its own network. A name is resolved where the runtime
 * has a resolver, and refused when any of its addresses is private (docs/design/a2a-push.md
 * "Targets"); without one (Workers) names are judged as written.
 * @module
 */
import { isPrivateHost } from "../../base/private-host.ts";
import { invalidParams } from "./errors.ts";

/** Resolves a host name to its addresses (the runtime's resolver). */
export type ResolveHost = (hostname: string) => Promise<string[]>;

/** How long a target's name may take to resolve before the config is refused. */
const RESOLVE_TIMEOUT_MS = 5000;

export function checkPushTarget(raw: string, allowPrivate: boolean): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw invalidParams("the push notification url is not an absolute URL");
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") throw invalidParams("the push notification url must be http or https");
  if (url.username || url.password) throw invalidParams("the push notification url must not carry credentials; use authentication");
  if (!allowPrivate && isPrivateHost(url.hostname)) {
    throw invalidParams(`push notifications to ${url.hostname} (loopback, private or link-local) are refused; the server allows them only under --dev`);
  }
  return url;
}

/**
 * The check of {@link checkPushTarget}, then the name's addresses: a name that resolves to a
 * private address, or does not resolve, is refused as one written as such would be.
 */
export async function checkResolvedTarget(raw: string, allowPrivate: boolean, resolveHost: ResolveHost | undefined): Promise<URL> {
  const url = checkPushTarget(raw, allowPrivate);
  const name = url.hostname.replace(/^\[|\]$/g, "");
  if (allowPrivate || resolveHost === undefined || isAddress(name)) return url;
  let addresses: string[];
  try {
    addresses = await Promise.race([
      resolveHost(name),
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error("timed out")), RESOLVE_TIMEOUT_MS)),
    ]);
  } catch {
    throw invalidParams(`the push notification url's host ${name} does not resolve`);
  }
  const inside = addresses.find((address) => isPrivateHost(address));
  if (addresses.length === 0 || inside !== undefined) {
    throw invalidParams(`push notifications to ${name} are refused: it resolves to ${inside ?? "no address"} (loopback, private or link-local); the server allows them only under --dev`);
  }
  return url;
}

// --- internals ---

const isAddress = (host: string): boolean => /^[\d.]+$/.test(host) || host.includes(":");
