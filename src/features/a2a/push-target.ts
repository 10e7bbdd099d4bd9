/**
 * Where a push notification may go (docs/guide/a2a.md "Push notifications"): http or https, and
 * never a loopback, private or link-local address unless the server runs with `--dev`, so a
 * caller cannot make the server post into its own network. Names are checked as written: a
 * public name that resolves to a private address is the deployment's egress policy to stop.
 * @module
 */
import { isPrivateHost } from "../../base/private-host.ts";
import { invalidParams } from "./errors.ts";

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
