/**
 * MCP's stdio transport over an agent's `POST /v1/mcp` (docs/guide/mcp.md "Over stdio"): each
 * newline-delimited JSON-RPC message read from stdin is posted to the stateless endpoint, and its
 * JSON answer is written to stdout as one line. Nothing MCP is implemented here: the endpoint
 * (the agent's own, local or `--url`) answers everything, so stdio and HTTP clients see the same
 * server. Requests run concurrently; `notifications/cancelled` aborts the request it names.
 * @module
 */
import { errorMessage, type Writable } from "./io.ts";

/** Posts one JSON-RPC message to the endpoint (the target's `fetch` of `/v1/mcp`). */
export type PostMessage = (body: string, headers: Record<string, string>, signal: AbortSignal) => Promise<Response>;

export interface McpBridge {
  /** Handles one line read from stdin; resolves once its answer (if any) is written. */
  line(text: string): Promise<void>;
  /** Aborts every request in flight. */
  close(): void;
}

export function createMcpBridge(post: PostMessage, stdout: Writable): McpBridge {
  const inFlight = new Map<string | number, AbortController>();
  /** The version `initialize` settled on, sent on later requests as the HTTP transport asks. */
  let protocolVersion: string | undefined;
  const write = (message: unknown): void => void stdout.write(`${JSON.stringify(message)}\n`);

  async function handle(message: JsonRpcMessage): Promise<void> {
    if (message.method === "notifications/cancelled") {
      const id = (message.params as { requestId?: string | number } | undefined)?.requestId;
      if (id !== undefined) inFlight.get(id)?.abort();
    }
    const id = "id" in message && message.method !== undefined ? message.id : undefined;
    const abort = new AbortController();
    if (id !== undefined) inFlight.set(id, abort);
    try {
      const headers: Record<string, string> = { "content-type": "application/json", accept: "application/json, text/event-stream" };
      if (protocolVersion) headers["mcp-protocol-version"] = protocolVersion;
      const response = await post(JSON.stringify(message), headers, abort.signal);
      const text = await response.text();
      if (id === undefined) return; // a notification or a response: the endpoint owes no answer
      const answer = parseAnswer(text);
      if (answer === undefined) {
        write(rpcError(id, -32603, `the agent's MCP endpoint answered ${response.status}${text ? `: ${text.slice(0, 200)}` : ""}`));
        return;
      }
      if (message.method === "initialize" && isRecord(answer) && isRecord(answer["result"]) && typeof answer["result"]["protocolVersion"] === "string") {
        protocolVersion = answer["result"]["protocolVersion"];
      }
      write(answer);
    } catch (error) {
      if (id !== undefined && !abort.signal.aborted) write(rpcError(id, -32603, errorMessage(error)));
    } finally {
      if (id !== undefined) inFlight.delete(id);
    }
  }

  return {
    async line(text) {
      if (text.trim() === "") return;
      let message: unknown;
      try {
        message = JSON.parse(text);
      } catch {
        write(rpcError(null, -32700, "parse error: each line must be one JSON-RPC message"));
        return;
      }
      if (!isRecord(message) || message["jsonrpc"] !== "2.0") {
        write(rpcError(null, -32600, "invalid request: not a JSON-RPC 2.0 message"));
        return;
      }
      // SAFETY: a JSON-RPC 2.0 object; the endpoint validates the rest of it.
      await handle(message as unknown as JsonRpcMessage);
    },
    close() {
      for (const abort of inFlight.values()) abort.abort();
      inFlight.clear();
    },
  };
}

// --- internals ---

interface JsonRpcMessage {
  jsonrpc: "2.0";
  id?: string | number;
  method?: string;
  params?: unknown;
}

/** The JSON-RPC answer in a JSON body, or in the `data:` lines of an SSE body. */
function parseAnswer(text: string): unknown {
  const trimmed = text.trim();
  if (trimmed === "") return undefined;
  try {
    const parsed: unknown = JSON.parse(trimmed);
    return isRecord(parsed) && parsed["jsonrpc"] === "2.0" ? parsed : undefined;
  } catch {
    const data = trimmed.split("\n").filter((line) => line.startsWith("data:")).map((line) => line.slice(5).trim());
    for (const line of data.reverse()) {
      try {
        const parsed: unknown = JSON.parse(line);
        if (isRecord(parsed) && parsed["jsonrpc"] === "2.0" && ("result" in parsed || "error" in parsed)) return parsed;
      } catch {
        // not JSON: skip it
      }
    }
    return undefined;
  }
}

const rpcError = (id: string | number | null, code: number, message: string): unknown => ({ jsonrpc: "2.0", id, error: { code, message } });

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);
