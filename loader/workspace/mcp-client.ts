/**
 * The client side of `bot/mcp-connections/`: the `mcp` harness tool lists and calls tools of a
 * project's MCP servers, over Streamable HTTP (`{url, headers}`) or stdio (`{command, args,
 * env}`). A client opens for each call and closes after it, so `${NAME}` credentials are read
 * from the environment at every open and no server process outlives its call.
 * @module
 */
import { resolve } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport, getDefaultEnvironment } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport, StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { JsonValue } from "../../src/base/ports/model.ts";
import type { HarnessOutcome, McpConnectionConfig, McpPort, McpToolInfo } from "../../src/base/ports/runtime.ts";

export interface McpClientOptions {
  /** Where `${NAME}` templates read from. @default process.env */
  env?: Record<string, string | undefined>;
  /** Longest one MCP request may take. @default 60000 */
  requestTimeoutMs?: number;
}

export function createMcpPort(options: McpClientOptions = {}): McpPort {
  const env = (): Record<string, string | undefined> => options.env ?? process.env;
  const timeout = options.requestTimeoutMs ?? 60_000;
  return {
    listTools: (connection, call) =>
      withClient(connection, env(), call.base, async (client) => {
        const listed = await client.listTools(undefined, { signal: call.signal, timeout });
        return listed.tools.map((tool): McpToolInfo => ({
          name: tool.name,
          ...(tool.description ? { description: tool.description } : {}),
          inputSchema: tool.inputSchema as Record<string, unknown>,
        }));
      }),
    callTool: (connection, tool, args, call) =>
      withClient(connection, env(), call.base, async (client): Promise<HarnessOutcome> => {
        const result = await client.callTool({ name: tool, arguments: args }, undefined, { signal: call.signal, timeout });
        // SAFETY: an MCP tool result is JSON as received from the server
        return { output: result as unknown as JsonValue, isError: result.isError === true };
      }),
  };
}

/** `${NAME}` replaced from `env`; a name that is not set is an error naming it. */
export function resolveTemplates(value: string, env: Record<string, string | undefined>): string {
  return value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_match, name: string) => {
    const found = env[name];
    if (found === undefined) throw new Error(`environment variable ${name} is not set`);
    return found;
  });
}

// --- internals ---

async function withClient<T>(
  connection: McpConnectionConfig,
  env: Record<string, string | undefined>,
  base: string | undefined,
  work: (client: Client) => Promise<T>,
): Promise<T> {
  try {
    return await withOneClient(connection, env, base, work);
  } catch (error) {
    // A stored OAuth token the server stopped accepting before its expiry: one renewal, one retry
    // (the server refused before doing anything, so the call runs at most once).
    if (!("url" in connection) || !connection.renewAccessToken || !(error instanceof StreamableHTTPError) || error.code !== 401) throw error;
    const { renewAccessToken, ...rest } = connection;
    return withOneClient({ ...rest, accessToken: await renewAccessToken() }, env, base, work);
  }
}

async function withOneClient<T>(
  connection: McpConnectionConfig,
  env: Record<string, string | undefined>,
  base: string | undefined,
  work: (client: Client) => Promise<T>,
): Promise<T> {
  const client = new Client({ name: "agent-serve", version: "0.1.0" });
  const transport =
    "url" in connection
      ? new StreamableHTTPClientTransport(new URL(connection.url), { requestInit: { headers: httpHeaders(connection, env) } })
      : new StdioClientTransport({
          command: connection.command,
          args: connection.args ?? [],
          env: { ...getDefaultEnvironment(), ...mapValues(connection.env ?? {}, env) },
          cwd: resolve(base ?? ".", connection.cwd ?? "."),
          stderr: "ignore",
        });
  try {
    await client.connect(transport);
    return await work(client);
  } finally {
    await client.close().catch(() => {});
  }
}

/** The connection's headers, templates resolved; a stored OAuth token is not a template. */
function httpHeaders(connection: { headers?: Record<string, string>; accessToken?: string }, env: Record<string, string | undefined>): Record<string, string> {
  const headers = mapValues(connection.headers ?? {}, env);
  if (connection.accessToken === undefined) return headers;
  const others = Object.entries(headers).filter(([name]) => name.toLowerCase() !== "authorization");
  return { ...Object.fromEntries(others), authorization: `Bearer ${connection.accessToken}` };
}

function mapValues(values: Record<string, string>, env: Record<string, string | undefined>): Record<string, string> {
  return Object.fromEntries(Object.entries(values).map(([key, value]) => [key, resolveTemplates(value, env)]));
}
