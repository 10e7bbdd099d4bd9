/**
 * MCP tool results. A JSON object result travels twice, as `structuredContent` and as the same
 * JSON in a text part (docs/design/mcp-and-discovery.md), so clients that read only text still get
 * all of it.
 * @module
 */
import { type CallToolResult, CallToolResultSchema } from "@modelcontextprotocol/sdk/types.js";
import type { HTTPError } from "../../base/errors.ts";
import type { JsonValue } from "../../base/ports/model.ts";

/** A JSON object as both structured content and text. */
export function jsonToolResult(value: Record<string, unknown>, isError = false): CallToolResult {
  return {
    content: [{ type: "text", text: JSON.stringify(value) }],
    structuredContent: value,
    ...(isError ? { isError: true } : {}),
  };
}

/** A refusal the caller can act on (unknown session, stale token, bad input), in the HTTP envelope's shape. */
export function errorToolResult(error: HTTPError): CallToolResult {
  return jsonToolResult({ ...error.data, ok: false, error: error.code, message: error.message }, true);
}

/**
 * A server tool's own result as an MCP result (`/v1/mcp/tools`): an envelope `{content, isError?}`
 * passes through when its parts are valid MCP content, a string is one text part, a JSON object
 * is structured content plus text, and any other JSON value is its text.
 */
export function toolResultToMcp(result: JsonValue, isError: boolean): CallToolResult {
  if (isObject(result) && Array.isArray(result.content)) {
    const parsed = CallToolResultSchema.safeParse({ content: result.content, ...(isError ? { isError: true } : {}) });
    if (parsed.success) return parsed.data;
  }
  if (typeof result === "string") return { content: [{ type: "text", text: result }], ...(isError ? { isError: true } : {}) };
  if (isObject(result)) return jsonToolResult(result, isError);
  return { content: [{ type: "text", text: JSON.stringify(result) }], ...(isError ? { isError: true } : {}) };
}

// --- internals ---

function isObject(value: JsonValue): value is { [key: string]: JsonValue } {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
