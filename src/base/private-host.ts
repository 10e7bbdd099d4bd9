/**
 * Whether a host name, as written, is a loopback, private, link-local or unspecified address:
 * where a server-side post must not go unless the deployment allows it (docs/guide/a2a.md "Push
 * notifications", docs/guide/webhooks.md "Targets"). Names are judged as written: a public name
 * that resolves to a private address is the deployment's egress policy to stop.
 * @module
 */

export function isPrivateHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/^\[|\]$/g, "");
  if (host === "localhost" || host.endsWith(".localhost") || host === "0.0.0.0" || host === "") return true;
  const v4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(host);
  if (v4) {
    const [a, b] = [Number(v4[1]), Number(v4[2])];
    return a === 0 || a === 10 || a === 127 || (a === 169 && b === 254) || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || (a === 100 && b >= 64 && b <= 127);
  }
  if (host.includes(":")) {
    if (host === "::" || host === "::1") return true;
    // IPv4-mapped (::ffff:a.b.c.d, or its hex form) carries an IPv4 address: judge that one.
    const mapped = /^::ffff:(.+)$/.exec(host);
    if (mapped) return mapped[1]!.includes(".") ? isPrivateHost(mapped[1]!) : true;
    return /^f[cd]/.test(host) || /^fe[89ab]/.test(host);
  }
  return false;
}
