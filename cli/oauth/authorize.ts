/**
 * The OAuth 2.1 authorization-code flow with PKCE for an MCP connection (docs/guide/mcp.md
 * "Connections that need OAuth"), through the MCP SDK's client functions: the protected-resource
 * metadata (RFC 9728) names the authorization server, whose metadata (RFC 8414) gives the
 * endpoints; the client registers itself (RFC 7591) unless the connection names a client id; the
 * browser is sent to the authorization endpoint with an S256 challenge, `state` and `resource`
 * (RFC 8707), and comes back to a loopback listener (RFC 8252 §7.3); the code is exchanged for
 * tokens with the verifier.
 * @module
 */
import { randomBytes } from "node:crypto";
import { discoverOAuthServerInfo, exchangeAuthorization, registerClient, selectClientAuthMethod, startAuthorization } from "@modelcontextprotocol/sdk/client/auth.js";
import { resourceUrlFromServerUrl } from "@modelcontextprotocol/sdk/shared/auth-utils.js";
import type { OAuthClientInformationMixed } from "@modelcontextprotocol/sdk/shared/auth.js";
import { withTokens } from "../../src/entries/connections.ts";
import type { HttpConnectionDefinition, McpOAuthRecord } from "../../src/entries/connections.ts";
import { CommandError, errorMessage } from "../io.ts";
import { listenForRedirect } from "./loopback-redirect.ts";

export interface AuthorizeOptions {
  /** The connection's name. */
  name: string;
  connection: HttpConnectionDefinition;
  /** Hands the authorization URL to the user (prints it, opens a browser). */
  present: (authorizationUrl: string) => void;
  /** The loopback listener's port. @default any free port */
  redirectPort?: number;
  /** How long to wait for the browser to come back. */
  timeoutMs: number;
  signal?: AbortSignal;
}

/** Runs the flow; resolves with what to store. */
export async function authorize(options: AuthorizeOptions): Promise<McpOAuthRecord> {
  const { name, connection } = options;
  const settings = connection.oauth === true || connection.oauth === undefined ? {} : connection.oauth;
  const info = await step("discover the authorization server", () => discoverOAuthServerInfo(connection.url));
  const metadata = info.authorizationServerMetadata;
  if (!metadata) throw new CommandError(`${info.authorizationServerUrl} publishes no OAuth authorization-server metadata (RFC 8414): the connection ${name} cannot be authorized by agent-serve`);
  const resource = info.resourceMetadata?.resource ?? resourceUrlFromServerUrl(connection.url).href;
  const scope = settings.scopes?.join(" ") ?? info.resourceMetadata?.scopes_supported?.join(" ") ?? undefined;

  const listener = await listenForRedirect({ ...(options.redirectPort === undefined ? {} : { port: options.redirectPort }), timeoutMs: options.timeoutMs, ...(options.signal ? { signal: options.signal } : {}) });
  try {
    let client: OAuthClientInformationMixed;
    if (settings.clientId !== undefined) client = { client_id: settings.clientId };
    else if (metadata.registration_endpoint) {
      client = await step("register the client (RFC 7591)", () =>
        registerClient(info.authorizationServerUrl, {
          metadata,
          clientMetadata: {
            client_name: `agent-serve (${name})`,
            redirect_uris: [listener.redirectUri],
            grant_types: ["authorization_code", "refresh_token"],
            response_types: ["code"],
            token_endpoint_auth_method: "none",
          },
          ...(scope ? { scope } : {}),
        }),
      );
    } else {
      throw new CommandError(`${info.authorizationServerUrl} offers no dynamic client registration: register a client there and set oauth: { clientId } in bot/mcp-connections/${name}.ts`);
    }
    const state = randomBytes(16).toString("base64url");
    const { authorizationUrl, codeVerifier } = await startAuthorization(info.authorizationServerUrl, { metadata, clientInformation: client, redirectUrl: listener.redirectUri, state, resource, ...(scope ? { scope } : {}) });
    options.present(authorizationUrl.href);
    const redirect = await listener.redirect;
    if (redirect.get("state") !== state) throw new CommandError("the authorization answer came back with another state: start again with agent-serve mcp oauth");
    const refused = redirect.get("error");
    if (refused) throw new CommandError(`the authorization server refused: ${refused}${redirect.get("error_description") ? ` (${redirect.get("error_description")})` : ""}`);
    const code = redirect.get("code");
    if (!code) throw new CommandError("the authorization answer carried no code");
    const tokens = await step("exchange the code for tokens", () =>
      exchangeAuthorization(info.authorizationServerUrl, { metadata, clientInformation: client, authorizationCode: code, codeVerifier, redirectUri: listener.redirectUri, resource }),
    );
    const secret = "client_secret" in client && typeof client.client_secret === "string" ? client.client_secret : undefined;
    return withTokens(
      {
        connection: name,
        serverUrl: connection.url,
        resource,
        issuer: metadata.issuer,
        tokenEndpoint: metadata.token_endpoint,
        ...("revocation_endpoint" in metadata && typeof metadata.revocation_endpoint === "string" ? { revocationEndpoint: metadata.revocation_endpoint } : {}),
        clientId: client.client_id,
        ...(secret === undefined ? {} : { clientSecret: secret }),
        clientAuth: selectClientAuthMethod(client, metadata.token_endpoint_auth_methods_supported ?? []),
      },
      tokens,
      Date.now(),
    );
  } finally {
    await listener.close();
  }
}

// --- internals ---

async function step<T>(what: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof CommandError) throw error;
    throw new CommandError(`cannot ${what}: ${errorMessage(error)}`);
  }
}
