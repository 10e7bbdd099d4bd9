/**
 * The built-in auth policies of docs/guide/http-api.md "Auth". Each returns an `AuthPolicy`.
 * @module
 */
import type { AuthContext, AuthPolicy } from "./auth.ts";
import { constantTimeEqual } from "./constant-time.ts";

const FORWARDING_HEADERS = ["x-forwarded-for", "x-real-ip", "forwarded", "x-forwarded-host"];

const LOCAL_PRINCIPAL = (authenticator: string): AuthContext => ({
  authenticator,
  principalId: "local",
  principalType: "local",
});

/**
 * Direct loopback callers only: a loopback TCP peer, no proxy-forwarding headers, and a loopback
 * Host header (which turns away DNS-rebinding pages that resolve their own name to 127.0.0.1).
 */
export function localDevStrict(): AuthPolicy {
  return (request, info) => {
    if (!isLoopbackAddress(info.ip) || hasForwardingHeaders(request)) return null;
    // No Host header (HTTP/1.0) is refused like a foreign one: the URL a server builds without it
    // names whatever the server assumed, not what the caller asked for (docs/guide/http-api.md).
    const host = request.headers.get("host");
    if (host === null || !isLoopbackHost(host)) return null;
    return LOCAL_PRINCIPAL("localDevStrict");
  };
}

/** Like `localDevStrict()` without the Host header check. */
export function localDev(): AuthPolicy {
  return (request, info) =>
    isLoopbackAddress(info.ip) && !hasForwardingHeaders(request) ? LOCAL_PRINCIPAL("localDev") : null;
}

/** A loopback TCP peer, whatever forwarding headers say. */
export function loopbackOnly(): AuthPolicy {
  return (_request, info) => (isLoopbackAddress(info.ip) ? LOCAL_PRINCIPAL("loopbackOnly") : null);
}

export type TokenVerifier = (token: string) => AuthContext | null | Promise<AuthContext | null>;

/**
 * `Authorization: Bearer <token>`. With a string, the presented token is compared in constant time
 * and every holder is the same principal; with a verifier, the verifier decides the principal.
 */
export function bearerAuth(tokenOrVerifier: string | TokenVerifier): AuthPolicy {
  if (typeof tokenOrVerifier === "string" && tokenOrVerifier.length === 0) {
    throw new Error("[agent-serve] [auth] bearerAuth needs a non-empty token");
  }
  const expected = typeof tokenOrVerifier === "string" ? new TextEncoder().encode(tokenOrVerifier) : undefined;
  return async (request) => {
    const header = request.headers.get("authorization") ?? "";
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!match?.[1]) return null;
    if (typeof tokenOrVerifier === "function") return tokenOrVerifier(match[1]);
    return expected && constantTimeEqual(new TextEncoder().encode(match[1]), expected)
      ? { authenticator: "bearerAuth", principalId: "bearer", principalType: "service" }
      : null;
  };
}

/** Everyone, as the anonymous principal. */
export function allowAll(): AuthPolicy {
  return () => ({ authenticator: "allowAll", principalId: "anonymous", principalType: "anonymous" });
}

/** 127.0.0.0/8, ::1 and their IPv4-mapped forms (Node reports `::ffff:127.0.0.1` on dual-stack). */
export function isLoopbackAddress(ip: string | undefined): boolean {
  if (!ip) return false;
  const address = ip.startsWith("::ffff:") ? ip.slice(7) : ip;
  return address === "::1" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(address);
}

// --- internals ---

function hasForwardingHeaders(request: Request): boolean {
  return FORWARDING_HEADERS.some((name) => request.headers.has(name));
}

function isLoopbackHost(host: string): boolean {
  const hostname = host.startsWith("[") ? host.slice(1, host.indexOf("]")) : host.replace(/:\d+$/, "");
  return hostname === "localhost" || hostname.endsWith(".localhost") || isLoopbackAddress(hostname);
}

