/**
 * A stand-in for a third-party MCP server behind OAuth, on loopback: its protected-resource
 * metadata (RFC 9728) at `/.well-known/oauth-protected-resource/mcp`, an authorization server on
 * the same origin (metadata, dynamic client registration, an authorization endpoint that approves
 * at once, a token endpoint checking PKCE and rotating refresh tokens, revocation), and `/mcp`:
 * a real MCP SDK server, stateless, admitting only live access tokens. Its tool `whoami` answers
 * with the token it was called with. Everything it saw is kept for the test to read.
 */
import { createHash } from "node:crypto";
import { createServer } from "node:http";
import type { IncomingMessage, ServerResponse } from "node:http";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";

export interface OAuthMcpServer {
  url: string;
  /** The MCP endpoint: what a connection's `url` names. */
  mcpUrl: string;
  /** `expires_in` of the tokens issued from now on (seconds). */
  expiresIn: number;
  /** Each token request's grant type, in order. */
  grants: string[];
  /** The bearer token of each MCP request admitted. */
  calls: string[];
  /** Tokens revoked through the revocation endpoint. */
  revoked: string[];
  /** The authorization requests' query parameters. */
  authorizations: Array<Record<string, string>>;
  /** Registered clients by id. */
  clients: Map<string, { redirect_uris: string[] }>;
  /** Admits `token` at `/mcp` as if issued (a token handed out some other way). */
  admit(token: string): void;
  /** Stops admitting `token` at `/mcp` before its expiry (its refresh token stays good). */
  forget(token: string): void;
  close(): Promise<void>;
}

export async function startOAuthMcpServer(): Promise<OAuthMcpServer> {
  const codes = new Map<string, { clientId: string; redirectUri: string; challenge: string; resource: string }>();
  const accessTokens = new Set<string>();
  const refreshTokens = new Map<string, string>();
  let counter = 0;
  const state: Omit<OAuthMcpServer, "close" | "admit" | "forget"> = { url: "", mcpUrl: "", expiresIn: 3600, grants: [], calls: [], revoked: [], authorizations: [], clients: new Map() };

  const issue = (clientId: string): Record<string, unknown> => {
    counter += 1;
    const access = `at-${counter}`;
    const refresh = `rt-${counter}`;
    accessTokens.add(access);
    refreshTokens.set(refresh, clientId);
    return { access_token: access, token_type: "Bearer", expires_in: state.expiresIn, refresh_token: refresh, scope: "tracker.read" };
  };

  const server = createServer((request, response) => {
    void handle(request, response).catch((error: unknown) => {
      response.writeHead(500).end(String(error));
    });
  });

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? "/", state.url);
    const send = (status: number, body: unknown, headers: Record<string, string> = {}): void => {
      response.writeHead(status, { "content-type": "application/json", ...headers }).end(JSON.stringify(body));
    };
    const body = request.method === "POST" ? await readBody(request) : "";
    const form = new URLSearchParams(body);
    switch (url.pathname) {
      case "/.well-known/oauth-protected-resource/mcp":
        return send(200, { resource: state.mcpUrl, authorization_servers: [state.url], scopes_supported: ["tracker.read"] });
      case "/.well-known/oauth-authorization-server":
        return send(200, {
          issuer: state.url,
          authorization_endpoint: `${state.url}/authorize`,
          token_endpoint: `${state.url}/token`,
          registration_endpoint: `${state.url}/register`,
          revocation_endpoint: `${state.url}/revoke`,
          response_types_supported: ["code"],
          grant_types_supported: ["authorization_code", "refresh_token"],
          code_challenge_methods_supported: ["S256"],
          token_endpoint_auth_methods_supported: ["none"],
        });
      case "/register": {
        const metadata = JSON.parse(body) as { redirect_uris: string[] };
        const clientId = `client-${state.clients.size + 1}`;
        state.clients.set(clientId, { redirect_uris: metadata.redirect_uris });
        return send(201, { ...metadata, client_id: clientId, token_endpoint_auth_method: "none" });
      }
      case "/authorize": {
        const query = Object.fromEntries(url.searchParams);
        state.authorizations.push(query);
        const client = state.clients.get(query.client_id ?? "");
        if (!client || !client.redirect_uris.includes(query.redirect_uri ?? "") || query.code_challenge_method !== "S256" || query.response_type !== "code") {
          return send(400, { error: "invalid_request" });
        }
        const code = `code-${codes.size + 1}`;
        codes.set(code, { clientId: query.client_id!, redirectUri: query.redirect_uri!, challenge: query.code_challenge!, resource: query.resource ?? "" });
        const back = new URL(query.redirect_uri!);
        back.searchParams.set("code", code);
        back.searchParams.set("state", query.state ?? "");
        response.writeHead(302, { location: back.href }).end();
        return;
      }
      case "/token": {
        const grant = form.get("grant_type") ?? "";
        state.grants.push(grant);
        if (grant === "authorization_code") {
          const issued = codes.get(form.get("code") ?? "");
          codes.delete(form.get("code") ?? "");
          const verifier = form.get("code_verifier") ?? "";
          const challenge = createHash("sha256").update(verifier).digest("base64url");
          if (!issued || issued.clientId !== form.get("client_id") || issued.redirectUri !== form.get("redirect_uri") || issued.challenge !== challenge || issued.resource !== form.get("resource")) {
            return send(400, { error: "invalid_grant" });
          }
          return send(200, issue(issued.clientId));
        }
        if (grant === "refresh_token") {
          const refresh = form.get("refresh_token") ?? "";
          const clientId = refreshTokens.get(refresh);
          if (clientId === undefined || clientId !== form.get("client_id") || form.get("resource") !== state.mcpUrl) return send(400, { error: "invalid_grant" });
          refreshTokens.delete(refresh);
          return send(200, issue(clientId));
        }
        return send(400, { error: "unsupported_grant_type" });
      }
      case "/revoke": {
        const token = form.get("token") ?? "";
        state.revoked.push(token);
        accessTokens.delete(token);
        refreshTokens.delete(token);
        response.writeHead(200).end();
        return;
      }
      case "/mcp": {
        const token = /^Bearer (.+)$/.exec(request.headers.authorization ?? "")?.[1];
        if (token === undefined || !accessTokens.has(token)) {
          return send(401, { error: "invalid_token" }, { "www-authenticate": `Bearer resource_metadata="${state.url}/.well-known/oauth-protected-resource/mcp"` });
        }
        state.calls.push(token);
        const mcp = new Server({ name: "tracker", version: "1.0.0" }, { capabilities: { tools: {} } });
        mcp.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [{ name: "whoami", description: "The token this call carried", inputSchema: { type: "object", properties: {} } }] }));
        mcp.setRequestHandler(CallToolRequestSchema, async () => ({ content: [{ type: "text", text: `token ${token}` }] }));
        const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
        response.on("close", () => void transport.close());
        await mcp.connect(transport);
        await transport.handleRequest(request, response, body === "" ? undefined : JSON.parse(body));
        return;
      }
      default:
        send(404, { error: "not_found" });
    }
  }

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  state.url = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
  state.mcpUrl = `${state.url}/mcp`;
  return Object.assign(state, {
    admit: (token: string) => void accessTokens.add(token),
    forget: (token: string) => void accessTokens.delete(token),
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  });
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}
