/**
 * The OAuth tokens of an agent's MCP connections, kept in its store (docs/guide/mcp.md
 * "Connections that need OAuth"): `agent-serve mcp oauth <connection>` saves them after the
 * authorization-code flow; the `mcp` harness tool asks for the access token each time it opens
 * the connection, and gets one refreshed (refresh-token grant, RFC 6749 §6) when the stored one
 * expires within a minute. A refresh writes the new tokens back at once, so a rotated refresh
 * token is never lost; refreshes of one connection in this process run one at a time.
 * @module
 */
import type { HttpConnectionDefinition } from "../../base/definitions/harness.ts";
import type { McpOAuthRecord } from "../../base/definitions/mcp-oauth.ts";
import { createError, errorMessage } from "../../base/errors.ts";
import { KeyedLock } from "../../base/keyed-lock.ts";
import { MCP_OAUTH_PREFIX, mcpOAuthKey } from "../../base/storage/keys.ts";
import type { StorageDriver } from "../../base/storage/types.ts";

/** A token expiring within this is refreshed before use. */
export const REFRESH_MARGIN_MS = 60_000;

export interface McpOAuthTokens {
  /**
   * The connection's access token, refreshed first when it expires within {@link REFRESH_MARGIN_MS},
   * or with `renew` whatever its expiry (the server refused it).
   */
  accessToken(name: string, connection: HttpConnectionDefinition, options?: { renew?: boolean }): Promise<string>;
  read(name: string): Promise<McpOAuthRecord | undefined>;
  save(record: McpOAuthRecord): Promise<void>;
  remove(name: string): Promise<void>;
  /** Every stored authorization, by connection name. */
  list(): Promise<McpOAuthRecord[]>;
}

export interface McpOAuthTokensOptions {
  storage: Pick<StorageDriver, "get" | "set" | "delete" | "entries">;
  /** @default globalThis.fetch */
  fetch?: typeof fetch;
  /** @default Date.now */
  now?: () => number;
}

/** The token fields of a token endpoint's answer (RFC 6749 §5.1). */
export interface TokenAnswer {
  access_token: string;
  refresh_token?: string;
  expires_in?: number;
  scope?: string;
}

export function createMcpOAuthTokens(options: McpOAuthTokensOptions): McpOAuthTokens {
  const { storage } = options;
  const now = options.now ?? Date.now;
  const lock = new KeyedLock();
  const read = async (name: string): Promise<McpOAuthRecord | undefined> => {
    const text = await storage.get(mcpOAuthKey(name));
    return text === undefined ? undefined : (JSON.parse(text) as McpOAuthRecord); // SAFETY: written by save
  };
  const save = (record: McpOAuthRecord): Promise<void> => storage.set(mcpOAuthKey(record.connection), JSON.stringify(record));
  return {
    read,
    save,
    remove: (name) => storage.delete(mcpOAuthKey(name)),
    async list() {
      const entries = await storage.entries(MCP_OAUTH_PREFIX);
      return entries.map(([, text]) => JSON.parse(text) as McpOAuthRecord).sort((a, b) => a.connection.localeCompare(b.connection)); // SAFETY: written by save
    },
    accessToken: (name, connection, call = {}) =>
      lock.run(name, async () => {
        const again = `run agent-serve mcp oauth ${name} to authorize it`;
        const record = await read(name);
        if (!record) throw createError("mcp-oauth", `connection ${name} needs OAuth authorization: ${again}`);
        if (record.serverUrl !== connection.url) throw createError("mcp-oauth", `connection ${name} was authorized for ${record.serverUrl}, and its url is now ${connection.url}: ${again} again`);
        const fresh = record.expiresAt === undefined || record.expiresAt - REFRESH_MARGIN_MS > now();
        if (fresh && !call.renew) return record.accessToken;
        if (!record.refreshToken) {
          const why = fresh ? "was refused by the server" : "has expired";
          throw createError("mcp-oauth", `the access token of connection ${name} ${why} and the server gave no refresh token: ${again} again`);
        }
        let answer: TokenAnswer;
        try {
          answer = await refreshGrant(record, options.fetch ?? fetch);
        } catch (error) {
          throw createError("mcp-oauth", `cannot refresh the token of connection ${name} (${errorMessage(error)}): ${again} again`, error);
        }
        const refreshed = withTokens(record, answer, now());
        await save(refreshed);
        return refreshed.accessToken;
      }),
  };
}

/** `record` with the tokens of a token endpoint's answer; a refresh token not renewed is kept. */
export function withTokens(record: Omit<McpOAuthRecord, "accessToken" | "obtainedAt"> & Partial<McpOAuthRecord>, answer: TokenAnswer, at: number): McpOAuthRecord {
  const { expiresAt: _expired, ...rest } = record;
  return {
    ...rest,
    accessToken: answer.access_token,
    ...(answer.refresh_token ?? record.refreshToken ? { refreshToken: answer.refresh_token ?? record.refreshToken } : {}),
    ...(typeof answer.expires_in === "number" ? { expiresAt: at + answer.expires_in * 1000 } : {}),
    ...(answer.scope ?? record.scope ? { scope: answer.scope ?? record.scope } : {}),
    obtainedAt: new Date(at).toISOString(),
  };
}

// --- internals ---

async function refreshGrant(record: McpOAuthRecord, fetchFn: typeof fetch): Promise<TokenAnswer> {
  const body = new URLSearchParams({ grant_type: "refresh_token", refresh_token: record.refreshToken ?? "" });
  if (record.resource) body.set("resource", record.resource);
  const headers: Record<string, string> = { "content-type": "application/x-www-form-urlencoded", accept: "application/json" };
  if (record.clientAuth === "client_secret_basic" && record.clientSecret !== undefined) {
    headers.authorization = `Basic ${btoa(`${encodeURIComponent(record.clientId)}:${encodeURIComponent(record.clientSecret)}`)}`;
  } else {
    body.set("client_id", record.clientId);
    if (record.clientAuth === "client_secret_post" && record.clientSecret !== undefined) body.set("client_secret", record.clientSecret);
  }
  const response = await fetchFn(record.tokenEndpoint, { method: "POST", headers, body });
  const answer: unknown = await response.json().catch(() => undefined);
  const fields = typeof answer === "object" && answer !== null ? (answer as Record<string, unknown>) : {}; // SAFETY: members checked below
  if (!response.ok) throw new Error(`the token endpoint answered ${response.status}${typeof fields.error === "string" ? ` ${fields.error}` : ""}`);
  if (typeof fields.access_token !== "string" || fields.access_token === "") throw new Error("the token endpoint answered without an access_token");
  return {
    access_token: fields.access_token,
    ...(typeof fields.refresh_token === "string" ? { refresh_token: fields.refresh_token } : {}),
    ...(typeof fields.expires_in === "number" ? { expires_in: fields.expires_in } : {}),
    ...(typeof fields.scope === "string" ? { scope: fields.scope } : {}),
  };
}
