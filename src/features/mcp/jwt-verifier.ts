/**
 * A bearer-token verifier for access tokens that are JWTs signed by an OAuth authorization server
 * (docs/design/mcp-oauth-flags.md): what `serve --oauth-issuer` uses, so the MCP endpoints'
 * protected-resource metadata (docs/guide/mcp.md "Authorization") works without an embedding.
 * Web standards only (fetch, WebCrypto), so it runs on every runtime. A token is admitted when
 * its signature checks against the issuer's JWKS, `iss` is the issuer, `aud` names the audience,
 * it has not expired and has a `sub`; anything else is null, the next policy's turn.
 * @module
 */
import type { AuthContext } from "../../base/auth.ts";
import type { TokenVerifier } from "../../base/auth-policies.ts";

export interface JwtVerifierOptions {
  /** The authorization server's issuer URL, exactly as its tokens' `iss` says. */
  issuer: string;
  /** What the tokens' `aud` must name: this server's resource (for example its MCP endpoint URL). */
  audience: string;
  /** Where the signing keys are; else the `jwks_uri` of the issuer's metadata (RFC 8414, then OpenID discovery). */
  jwksUrl?: string;
  /** @default globalThis.fetch */
  fetch?: typeof fetch;
  /** @default Date.now */
  now?: () => number;
}

/** Clock skew tolerated on `exp` and `nbf`. */
const LEEWAY_SECONDS = 60;
/** The key set is fetched again for an unknown `kid`, at most this often. */
const REFRESH_MS = 30_000;

type Jwk = JsonWebKey & { kid?: string; alg?: string; use?: string };

const ALGORITHMS: Record<string, { import: RsaHashedImportParams | EcKeyImportParams | Algorithm; verify: Algorithm | RsaPssParams | EcdsaParams }> = {
  RS256: { import: { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256" }, verify: { name: "RSASSA-PKCS1-v1_5" } },
  RS384: { import: { name: "RSASSA-PKCS1-v1_5", hash: "SHA-384" }, verify: { name: "RSASSA-PKCS1-v1_5" } },
  RS512: { import: { name: "RSASSA-PKCS1-v1_5", hash: "SHA-512" }, verify: { name: "RSASSA-PKCS1-v1_5" } },
  PS256: { import: { name: "RSA-PSS", hash: "SHA-256" }, verify: { name: "RSA-PSS", saltLength: 32 } as RsaPssParams },
  PS384: { import: { name: "RSA-PSS", hash: "SHA-384" }, verify: { name: "RSA-PSS", saltLength: 48 } as RsaPssParams },
  PS512: { import: { name: "RSA-PSS", hash: "SHA-512" }, verify: { name: "RSA-PSS", saltLength: 64 } as RsaPssParams },
  ES256: { import: { name: "ECDSA", namedCurve: "P-256" }, verify: { name: "ECDSA", hash: "SHA-256" } as EcdsaParams },
  ES384: { import: { name: "ECDSA", namedCurve: "P-384" }, verify: { name: "ECDSA", hash: "SHA-384" } as EcdsaParams },
  EdDSA: { import: { name: "Ed25519" }, verify: { name: "Ed25519" } },
};

export function createJwtVerifier(options: JwtVerifierOptions): TokenVerifier {
  const fetcher = options.fetch ?? fetch;
  const now = options.now ?? Date.now;
  let keys: Jwk[] | undefined;
  let fetchedAt = 0;
  let loading: Promise<Jwk[]> | undefined;

  async function loadKeys(): Promise<Jwk[]> {
    const url = options.jwksUrl ?? (await discoverJwksUri(options.issuer, fetcher));
    const response = await fetcher(url, { headers: { accept: "application/json" }, signal: AbortSignal.timeout(10_000) });
    if (!response.ok) throw new Error(`the key set at ${url} answered ${response.status}`);
    const body = (await response.json()) as { keys?: unknown };
    if (!Array.isArray(body.keys)) throw new Error(`the key set at ${url} has no keys array`);
    return body.keys as Jwk[];
  }

  /** The key set, fetched once, and again (rate-limited) when a token names a key it lacks. */
  async function keySet(kid: string | undefined): Promise<Jwk[]> {
    const stale = keys === undefined || (kid !== undefined && !keys.some((key) => key.kid === kid) && now() - fetchedAt > REFRESH_MS);
    if (stale) {
      loading ??= loadKeys().finally(() => (loading = undefined));
      keys = await loading;
      fetchedAt = now();
    }
    return keys!;
  }

  return async (token) => {
    const parts = token.split(".");
    if (parts.length !== 3) return null;
    const header = decodeJson(parts[0]!);
    const claims = decodeJson(parts[1]!);
    if (!header || !claims || typeof header["alg"] !== "string") return null;
    const algorithm = ALGORITHMS[header["alg"]];
    if (!algorithm) return null;
    const kid = typeof header["kid"] === "string" ? header["kid"] : undefined;
    let candidates: Jwk[];
    try {
      candidates = (await keySet(kid)).filter((key) => (kid === undefined || key.kid === kid) && (key.alg === undefined || key.alg === header["alg"]) && key.use !== "enc");
    } catch {
      // The issuer is unreachable: no token can be checked, so none is admitted.
      return null;
    }
    const signed = new TextEncoder().encode(`${parts[0]}.${parts[1]}`);
    const signature = decodeBase64Url(parts[2]!);
    if (!signature) return null;
    let valid = false;
    for (const jwk of candidates) {
      try {
        const key = await crypto.subtle.importKey("jwk", jwk, algorithm.import, false, ["verify"]);
        if (await crypto.subtle.verify(algorithm.verify, key, signature, signed)) {
          valid = true;
          break;
        }
      } catch {
        // A key of another type or curve: not this token's.
      }
    }
    if (!valid) return null;
    return principalOf(claims, options, Math.floor(now() / 1000));
  };
}

// --- internals ---

function principalOf(claims: Record<string, unknown>, options: JwtVerifierOptions, nowSeconds: number): AuthContext | null {
  if (claims["iss"] !== options.issuer) return null;
  const audience = claims["aud"];
  if (!(audience === options.audience || (Array.isArray(audience) && audience.includes(options.audience)))) return null;
  if (typeof claims["exp"] !== "number" || claims["exp"] + LEEWAY_SECONDS < nowSeconds) return null;
  if (typeof claims["nbf"] === "number" && claims["nbf"] - LEEWAY_SECONDS > nowSeconds) return null;
  const subject = claims["sub"];
  if (typeof subject !== "string" || subject === "") return null;
  return {
    authenticator: "oauth",
    principalId: subject,
    principalType: "user",
    attributes: {
      issuer: options.issuer,
      ...(typeof claims["scope"] === "string" ? { scope: claims["scope"] } : {}),
      ...(typeof claims["client_id"] === "string" ? { clientId: claims["client_id"] } : {}),
    },
  };
}

/** The issuer's `jwks_uri`: RFC 8414 metadata first, OpenID discovery second. */
async function discoverJwksUri(issuer: string, fetcher: typeof fetch): Promise<string> {
  const url = new URL(issuer);
  const path = url.pathname === "/" ? "" : url.pathname.replace(/\/+$/, "");
  const candidates = [`${url.origin}/.well-known/oauth-authorization-server${path}`, `${url.origin}${path}/.well-known/openid-configuration`];
  for (const candidate of candidates) {
    const response = await fetcher(candidate, { headers: { accept: "application/json" }, signal: AbortSignal.timeout(10_000) }).catch(() => undefined);
    if (!response?.ok) {
      await response?.body?.cancel();
      continue;
    }
    const metadata = (await response.json().catch(() => ({}))) as { jwks_uri?: unknown };
    if (typeof metadata.jwks_uri === "string") return metadata.jwks_uri;
  }
  throw new Error(`the issuer ${issuer} publishes no jwks_uri`);
}

function decodeJson(part: string): Record<string, unknown> | undefined {
  const bytes = decodeBase64Url(part);
  if (!bytes) return undefined;
  try {
    const value = JSON.parse(new TextDecoder().decode(bytes)) as unknown;
    return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

function decodeBase64Url(part: string): Uint8Array<ArrayBuffer> | undefined {
  if (!/^[A-Za-z0-9_-]*$/.test(part)) return undefined;
  const binary = atob(part.replaceAll("-", "+").replaceAll("_", "/").padEnd(Math.ceil(part.length / 4) * 4, "="));
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}
