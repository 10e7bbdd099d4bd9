/**
 * One stateless MCP request over Streamable HTTP: a fresh low-level `Server` and web-standard
 * transport per request (a stateless transport cannot be reused), JSON responses instead of SSE,
 * tools described by raw JSON Schema. Web `Request` in, `Response` out: nothing here converts to
 * Node request objects, so the same code runs on every runtime.
 * @module
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
} from "@modelcontextprotocol/sdk/types.js";
import { HTTPError } from "../../base/errors.ts";
import type { JsonSchemaObject } from "../../base/definitions/tools.ts";
import type { HostLogger } from "../../base/logging.ts";
import { errorToolResult } from "./results.ts";
import { readBodyText } from "../../base/body.ts";
import { type McpTasks, handleModernRequest, isModernRequest, reply, rpcError } from "./stateless-2026.ts";

/** One tool an endpoint offers. */
export interface McpTool {
  name: string;
  description: string;
  inputSchema: JsonSchemaObject;
  /**
   * Runs the call. An `HTTPError` thrown here becomes a tool error result (`isError: true`), the
   * way MCP reports failures the caller can act on; anything else is logged and answered with a
   * generic internal error.
   */
  call(args: Record<string, unknown>, signal: AbortSignal): Promise<CallToolResult>;
}

export interface McpEndpointOptions {
  /** Server name reported by `initialize`. */
  name: string;
  version: string;
  instructions?: string;
  tools: readonly McpTool[];
  /** Bodies over this get 413. */
  maxBodyBytes: number;
  logger: HostLogger;
  /** Tools that may run as tasks of the Tasks extension (2026-07-28 requests only). */
  tasks?: McpTasks;
}

/** Handles one MCP POST; the caller answers other methods with 405 before getting here. */
export async function handleMcpRequest(request: Request, options: McpEndpointOptions): Promise<Response> {
  // A request of the 2026-07-28 revision is answered without the SDK's 2025 server; the others
  // read the untouched original body.
  // The body is read once, here: a copy read beside the transport's own read would leave the
  // rest of an oversized body unread on the connection.
  const body = await readBody(request, options.maxBodyBytes);
  if (body instanceof Response) return body;
  const peek = parseJson(body);
  if (peek !== undefined && isModernRequest(request, peek)) {
    return handleModernRequest(request, peek, { ...options, listed: () => listedTools(options.tools) });
  }
  const server = new Server(
    { name: options.name, version: options.version },
    { capabilities: { tools: {} }, ...(options.instructions ? { instructions: options.instructions } : {}) },
  );
  const byName = new Map(options.tools.map((tool) => [tool.name, tool]));
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: listedTools(options.tools) }));
  server.setRequestHandler(CallToolRequestSchema, async (call, extra) => {
    const tool = byName.get(call.params.name);
    if (!tool) {
      // MCP reports an unknown tool as a protocol error, not a tool result.
      throw new McpError(ErrorCode.InvalidParams, `unknown tool ${JSON.stringify(call.params.name)}; available: ${[...byName.keys()].join(", ")}`);
    }
    const signal = AbortSignal.any([extra.signal, request.signal]);
    try {
      return await tool.call(call.params.arguments ?? {}, signal);
    } catch (error) {
      if (HTTPError.isError(error)) return errorToolResult(error);
      options.logger.error(`[mcp] tool ${tool.name} failed`, error);
      throw new McpError(ErrorCode.InternalError, "internal error");
    }
  });
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
    maxRequestBodySize: options.maxBodyBytes,
  });
  await server.connect(transport);
  try {
    // The body was read (above); the transport gets the same request with it as text.
    const replayed = body === undefined ? request : new Request(request.url, { method: "POST", headers: request.headers, body, signal: request.signal });
    return await transport.handleRequest(replayed);
  } finally {
    // With JSON responses every reply is in the returned body, so closing now loses nothing.
    await server.close();
  }
}

// --- internals ---

function listedTools(tools: readonly McpTool[]): Array<{ name: string; description: string; inputSchema: Record<string, unknown> }> {
  return tools.map(({ name, description, inputSchema }) => ({ name, description, inputSchema: toMcpInputSchema(inputSchema) }));
}

/**
 * The body text of a POST (undefined for other methods), or the JSON-RPC error that answers an
 * oversized or unreadable one: an MCP client reads no other shape.
 */
async function readBody(request: Request, maxBytes: number): Promise<string | undefined | Response> {
  if (request.method !== "POST") return undefined;
  try {
    return await readBodyText(request, maxBytes);
  } catch (error) {
    if (HTTPError.isError(error) && error.status === 413) return reply(413, rpcError(null, -32000, error.message));
    return reply(400, rpcError(null, -32700, "Parse error: the request body is not UTF-8 text"));
  }
}

function parseJson(text: string | undefined): unknown {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** MCP requires an object schema at the root; a schema that omits `type` is taken as one. */
function toMcpInputSchema(schema: JsonSchemaObject): { type: "object"; [key: string]: unknown } {
  if (schema.type === undefined || schema.type === "object") return { ...schema, type: "object" };
  // A non-object root cannot be described to MCP clients; arguments are still passed through.
  return { type: "object", properties: {} };
}
