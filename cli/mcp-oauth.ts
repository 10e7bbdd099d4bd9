/**
 * `agent-serve mcp oauth <connection>`: authorizes an MCP connection declared with `oauth`
 * (docs/guide/mcp.md "Connections that need OAuth") and keeps its tokens in the agent's store,
 * the one `serve` uses, where the `mcp` tool reads and refreshes them at turn time. `--list`
 * shows each connection's authorization; `--revoke` revokes the tokens at the server (RFC 7009,
 * where it has an endpoint) and removes them. Tokens are never printed.
 * @module
 */
import { resolve } from "node:path";
import { discoverProjects } from "../adapters/_discovery.ts";
import { stateRootFor } from "../adapters/_project.ts";
import { openStorage } from "../adapters/_storage.ts";
import { createMcpOAuthTokens } from "../src/entries/connections.ts";
import type { ConnectionDefinition, HttpConnectionDefinition, McpOAuthRecord, McpOAuthTokens } from "../src/entries/connections.ts";
import { CommandError, EXIT_OK, UsageError, errorMessage } from "./io.ts";
import type { CliIo } from "./io.ts";
import { authorize } from "./oauth/authorize.ts";
import { openBrowser } from "./oauth/open-browser.ts";
import { parseStorageUrl } from "./storage-url.ts";
import { table } from "./table.ts";

export interface McpOAuthArgs {
  /** The connection to authorize or revoke. */
  connection?: string;
  list?: boolean;
  revoke?: boolean;
  dir?: string;
  mode?: "multi" | "single";
  stateRoot?: string;
  storage?: string;
  /** The agent, when the directory holds several. */
  slug?: string;
  /** Start the browser on the authorization URL. @default true */
  open?: boolean;
  redirectPort?: number;
  /** @default 300000 */
  timeoutMs?: number;
  json?: boolean;
}

export async function mcpOAuthCommand(args: McpOAuthArgs, io: CliIo): Promise<number> {
  if (args.list && (args.revoke || args.connection !== undefined)) throw new UsageError("mcp oauth --list takes no connection and no --revoke");
  if (!args.list && args.connection === undefined) throw new UsageError("mcp oauth needs a connection name (agent-serve mcp oauth <connection>), or --list");
  const mode = args.mode ?? "multi";
  const dir = resolve(io.cwd, args.dir ?? ".");
  const choice = parseStorageUrl(args.storage ?? (io.env.AGENT_SERVE_STORAGE || undefined));
  const { slug, projectDir, connections } = await chooseAgent(dir, mode, args.slug);
  const storage = openStorage(choice, { stateRoot: stateRootFor({ mode, slug, projectDir, stateRoot: args.stateRoot, cwd: io.cwd }), mode, slug, cwd: io.cwd });
  const tokens = createMcpOAuthTokens({ storage });
  try {
    if (args.list) return await list(tokens, connections, slug, args, io);
    const name = args.connection!;
    const connection = Object.hasOwn(connections, name) ? connections[name] : undefined;
    if (!connection) {
      const known = Object.keys(connections).sort().join(", ") || "none";
      throw new CommandError(`${slug} has no MCP connection "${name}" (its connections: ${known}; each is a file under bot/mcp-connections/)`);
    }
    if (args.revoke) return await revoke(tokens, name, slug, args, io);
    if (!("url" in connection) || !connection.oauth) {
      throw new CommandError(`connection ${name} does not take OAuth: add oauth: true to bot/mcp-connections/${name}.ts (an HTTP connection) to authorize it`);
    }
    return await authorizeConnection(tokens, name, connection, slug, args, io);
  } finally {
    await storage.close();
  }
}

// --- internals ---

async function chooseAgent(dir: string, mode: "multi" | "single", wanted: string | undefined): Promise<{ slug: string; projectDir: string; connections: Record<string, ConnectionDefinition> }> {
  const { projects } = await discoverProjects(dir, { mode });
  if (projects.length === 0) throw new CommandError(`no agent project in ${dir}: pass --dir <project>`);
  const chosen = wanted === undefined ? (projects.length === 1 ? projects[0] : undefined) : projects.find((p) => p.slug === wanted);
  if (!chosen) {
    const slugs = projects.map((p) => p.slug).join(", ");
    throw new UsageError(wanted === undefined ? `${dir} holds several agents (${slugs}): pass --slug` : `no agent "${wanted}" in ${dir} (agents: ${slugs})`);
  }
  return { slug: chosen.slug, projectDir: chosen.dir, connections: chosen.project.connections ?? {} };
}

async function authorizeConnection(tokens: McpOAuthTokens, name: string, connection: HttpConnectionDefinition, slug: string, args: McpOAuthArgs, io: CliIo): Promise<number> {
  const out = args.json ? io.stderr : io.stdout;
  const record = await authorize({
    name,
    connection,
    timeoutMs: args.timeoutMs ?? 300_000,
    ...(args.redirectPort === undefined ? {} : { redirectPort: args.redirectPort }),
    ...(io.signal ? { signal: io.signal } : {}),
    present(url) {
      out.write(`Open this URL to authorize ${name} (waiting for the browser to come back):\n  ${url}\n`);
      if (args.open !== false && (io.env.BROWSER || io.stdout.isTTY)) openBrowser(url, io.env);
    },
  });
  await tokens.save(record);
  if (args.json) io.stdout.write(`${JSON.stringify({ ok: true, agent: slug, ...describe(record) })}\n`);
  else {
    const expiry = record.expiresAt === undefined ? "no expiry given" : `expires ${new Date(record.expiresAt).toISOString()}${record.refreshToken ? ", refreshed before it does" : ""}`;
    io.stdout.write(`authorized ${name} for ${slug} (${expiry}); the tokens are in the agent's store\n`);
  }
  return EXIT_OK;
}

async function list(tokens: McpOAuthTokens, connections: Record<string, ConnectionDefinition>, slug: string, args: McpOAuthArgs, io: CliIo): Promise<number> {
  const stored = new Map((await tokens.list()).map((record) => [record.connection, record]));
  const names = [...new Set([...Object.keys(connections).filter((name) => isOAuth(connections[name])), ...stored.keys()])].sort();
  const rows = names.map((name) => {
    const record = stored.get(name);
    const connection = connections[name];
    return { connection: name, declared: isOAuth(connection), status: status(record, connection), ...(record ? describe(record) : {}) };
  });
  if (args.json) {
    io.stdout.write(`${JSON.stringify({ ok: true, agent: slug, connections: rows })}\n`);
    return EXIT_OK;
  }
  if (rows.length === 0) {
    io.stdout.write(`${slug} declares no connection with oauth and has no stored authorization\n`);
    return EXIT_OK;
  }
  const shown = rows.map((row) => [row.connection, row.status, "expiresAt" in row && row.expiresAt ? String(row.expiresAt) : "", "scope" in row && row.scope ? String(row.scope) : ""]);
  io.stdout.write(`${table([["CONNECTION", "STATUS", "EXPIRES", "SCOPE"], ...shown]).join("\n")}\n`);
  return EXIT_OK;
}

async function revoke(tokens: McpOAuthTokens, name: string, slug: string, args: McpOAuthArgs, io: CliIo): Promise<number> {
  const record = await tokens.read(name);
  if (!record) throw new CommandError(`${name} has no stored authorization for ${slug}: nothing to revoke`);
  let revoked: boolean | string = false;
  if (record.revocationEndpoint) {
    try {
      // The refresh token first: revoking it ends the grant, and most servers the access token with it.
      for (const [token, hint] of [[record.refreshToken, "refresh_token"], [record.accessToken, "access_token"]] as const) {
        if (token) await revokeToken(record, token, hint);
      }
      revoked = true;
    } catch (error) {
      revoked = errorMessage(error);
    }
  }
  await tokens.remove(name);
  if (args.json) io.stdout.write(`${JSON.stringify({ ok: true, agent: slug, connection: name, removed: true, revokedAtServer: revoked === true, ...(typeof revoked === "string" ? { revokeError: revoked } : {}) })}\n`);
  else {
    const server = revoked === true ? "revoked at the server and " : typeof revoked === "string" ? `not revoked at the server (${revoked}), but ` : "(the server has no revocation endpoint) ";
    io.stdout.write(`${name}: tokens ${server}removed from the store\n`);
  }
  return EXIT_OK;
}

async function revokeToken(record: McpOAuthRecord, token: string, hint: string): Promise<void> {
  const body = new URLSearchParams({ token, token_type_hint: hint, client_id: record.clientId });
  if (record.clientSecret !== undefined) body.set("client_secret", record.clientSecret);
  const response = await fetch(record.revocationEndpoint!, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body });
  if (!response.ok) throw new Error(`${record.revocationEndpoint} answered ${response.status}`);
}

function isOAuth(connection: ConnectionDefinition | undefined): boolean {
  return connection !== undefined && "url" in connection && connection.oauth !== undefined;
}

function status(record: McpOAuthRecord | undefined, connection: ConnectionDefinition | undefined): string {
  if (!record) return "not authorized";
  if (!connection || !("url" in connection)) return "authorized (connection removed)";
  if (record.serverUrl !== connection.url) return "url changed: authorize again";
  if (record.expiresAt !== undefined && record.expiresAt <= Date.now() && !record.refreshToken) return "expired: authorize again";
  return "authorized";
}

/** What may be shown of a stored authorization: never a token or a client secret. */
function describe(record: McpOAuthRecord): Record<string, unknown> {
  return {
    connection: record.connection,
    serverUrl: record.serverUrl,
    issuer: record.issuer,
    clientId: record.clientId,
    refreshable: record.refreshToken !== undefined,
    ...(record.expiresAt === undefined ? {} : { expiresAt: new Date(record.expiresAt).toISOString() }),
    ...(record.scope ? { scope: record.scope } : {}),
    obtainedAt: record.obtainedAt,
  };
}
