/**
 * The per-session, per-turn credential a runner presents to the host's `/v1/mcp/tools`
 * (docs/design/cloud-runtime.md "Authentication"): signed with a key random per host process,
 * bound to one session's turn and an expiry. The host honours it only while that turn is live.
 * @module
 */
import { signHmacSha256, verifyHmacSha256 } from "../../base/hmac.ts";

export const CREDENTIAL_PREFIX = "cst.";
/** The longest a credential lives, however long its turn runs. */
export const CREDENTIAL_TTL_MS = 60 * 60_000;

export interface CredentialClaims {
  sessionId: string;
  turnId: string;
  agent: string;
  /** Expiry, epoch ms. */
  exp: number;
}

export interface CredentialKey {
  mint(claims: Omit<CredentialClaims, "exp">, now?: number): Promise<string>;
  /** The claims of a good, unexpired credential; undefined for anything else. */
  verify(credential: string, now?: number): Promise<CredentialClaims | undefined>;
}

export function createCredentialKey(): CredentialKey {
  // 32 random bytes, as hex: the HMAC secret of this process only.
  const key = Array.from(crypto.getRandomValues(new Uint8Array(32)), (b) => b.toString(16).padStart(2, "0")).join("");
  return {
    async mint(claims, now = Date.now()) {
      const payload = base64url(JSON.stringify({ ...claims, exp: now + CREDENTIAL_TTL_MS }));
      return `${CREDENTIAL_PREFIX}${payload}.${await signHmacSha256(key, payload)}`;
    },
    async verify(credential, now = Date.now()) {
      if (!credential.startsWith(CREDENTIAL_PREFIX)) return undefined;
      const [payload, sig] = credential.slice(CREDENTIAL_PREFIX.length).split(".");
      if (!payload || !sig || !(await verifyHmacSha256(key, payload, sig))) return undefined;
      let claims: CredentialClaims;
      try {
        claims = JSON.parse(fromBase64url(payload)) as CredentialClaims;
      } catch {
        return undefined;
      }
      return typeof claims.exp === "number" && claims.exp > now ? claims : undefined;
    },
  };
}

function base64url(text: string): string {
  return btoa(String.fromCharCode(...new TextEncoder().encode(text))).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function fromBase64url(text: string): string {
  const binary = atob(text.replace(/-/g, "+").replace(/_/g, "/"));
  return new TextDecoder().decode(Uint8Array.from(binary, (c) => c.charCodeAt(0)));
}
