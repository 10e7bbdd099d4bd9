/**
 * MCP's 2026-07-28 revision on the same endpoints as the 2025 ones (docs/design/mcp-and-discovery.md
 * "Protocol revisions"): no `initialize`, every request self-describing in `params._meta`
 * (protocol version, client info and capabilities), `server/discover` for what the server offers.
 * The endpoints were stateless already, so a request of this revision is answered by the same tools
 * with no session of any kind. A request is of this revision when its `MCP-Protocol-Version`
 * header or its `_meta` names it; anything else goes to the 2025 handler unchanged.
 * @module
 */
import { HTTPError } from "../../base/errors.ts";
import type { HostLogger } from "../../base/logging.ts";
import { errorToolResult } from "./results.ts";
import type { McpTool } from "./stateless.ts";

export const MODERN_VERSION = "2026-07-28";
/** Every revision the endpoints speak, newest first (the 2025 ones through `initialize`). */
export const SUPPORTED_VERSIONS: readonly string[] = [MODERN_VERSION, "2025-11-25", "2025-06-18", "2025-03-26"];

const VERSION_KEY = "io.modelcontextprotocol/protocolVersion";

/** How long a client may reuse a `tools/list` answer. */
export const TOOLS_TTL_MS = 60_000;

/** Tasks of the extension (./tasks.ts), for an endpoint whose tools may run as tasks. */
export interface McpTasks {
  /**
   * Starts the call as a task; undefined when that tool always answers inline. `task` is the
   * request's `params.task` (its `ttl`, docs/design/mcp-task-expiry.md), `{}` when absent.
   */
  start(name: unknown, args: Record<string, unknown>, task?: Record<string, unknown>): Promise<Record<string, unknown> | undefined>;
  get(taskId: string, signal: AbortSignal): Promise<Record<string, unknown>>;
  update(taskId: string, inputResponses: Record<string, unknown>): Promise<void>;
  cancel(taskId: string): Promise<void>;
}

const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";

export interface ModernOptions {
  name: string;
  version: string;
  instructions?: string;
  tools: readonly McpTool[];
  /** The MCP input schema of each tool, as `tools/list` shows it. */
  listed: () => unknown[];
  logger: HostLogger;
  tasks?: McpTasks;
}

/** Whether a parsed body (and its request's headers) speak the 2026-07-28 revision. */
export function isModernRequest(request: Request, body: unknown): boolean {
  if (request.headers.get("mcp-protocol-version") === MODERN_VERSION) return true;
  return isRecord(body) && isRecord(body["params"]) && isRecord(body["params"]["_meta"]) && VERSION_KEY in body["params"]["_meta"];
}

/** Answers one request of the revision; notifications get 202 with no body. */
export async function handleModernRequest(request: Request, body: unknown, options: ModernOptions): Promise<Response> {
  if (!isRecord(body) || body["jsonrpc"] !== "2.0" || typeof body["method"] !== "string") return reply(400, rpcError(null, -32600, "invalid request: one JSON-RPC 2.0 message per POST"));
  const method = body["method"];
  const id = body["id"];
  if (id === undefined) return new Response(null, { status: 202 });
  if (typeof id !== "string" && typeof id !== "number") return reply(400, rpcError(null, -32600, "invalid request: id must be a string or a number"));
  const meta = (isRecord(body["params"]) && isRecord(body["params"]["_meta"]) ? body["params"]["_meta"] : {}) as Record<string, unknown>;
  const version = meta[VERSION_KEY];
  if (version !== MODERN_VERSION) {
    return reply(400, rpcError(id, -32602, `unsupported protocol version ${JSON.stringify(version ?? null)} in _meta`, { supported: SUPPORTED_VERSIONS }));
  }
  // The headers mirror the body so proxies can route without parsing it; a mismatch is refused.
  const headerVersion = request.headers.get("mcp-protocol-version");
  if (headerVersion !== null && headerVersion !== MODERN_VERSION) return reply(400, rpcError(id, -32600, "the MCP-Protocol-Version header does not match _meta"));
  const headerMethod = request.headers.get("mcp-method");
  if (headerMethod !== null && headerMethod !== method) return reply(400, rpcError(id, -32600, "the Mcp-Method header does not match the request's method"));
  const params = body["params"] as Record<string, unknown> | undefined;
  switch (method) {
    case "server/discover":
      return reply(200, rpcResult(id, {
        supportedVersions: SUPPORTED_VERSIONS,
        capabilities: { tools: {}, ...(options.tasks ? { extensions: { [TASKS_EXTENSION]: {} } } : {}) },
        ...(options.instructions ? { instructions: options.instructions } : {}),
        _meta: { "io.modelcontextprotocol/serverInfo": { name: options.name, version: options.version } },
      }));
    case "ping":
      return reply(200, rpcResult(id, {}));
    case "tools/list":
      // Cacheable: an agent's tools change only when its project reloads. Private, since the
      // endpoint sits behind the agent's auth.
      return reply(200, rpcResult(id, { tools: options.listed(), ttlMs: TOOLS_TTL_MS, cacheScope: "private" }));
    case "tools/call":
      // A client that declares the extension may get a task instead of the answer.
      if (options.tasks && wantsTasks(meta)) {
        const tasks = options.tasks;
        const task = await settle(id, options.logger, () => tasks.start(params?.["name"], isRecord(params?.["arguments"]) ? params["arguments"] : {}, isRecord(params?.["task"]) ? params["task"] : {}));
        if (isRpcError(task)) return reply(200, task);
        if (task !== undefined) return reply(200, rpcResult(id, { ...task, resultType: "task" }));
      }
      return reply(200, await callTool(id, params, request.signal, options));
    case "tasks/get":
    case "tasks/update":
    case "tasks/cancel": {
      const tasks = options.tasks;
      const taskId = params?.["taskId"];
      if (!tasks) return reply(200, rpcError(id, -32601, `method not found: ${method}`));
      if (typeof taskId !== "string") return reply(200, rpcError(id, -32602, "params.taskId must be a string"));
      const answer = await settle(id, options.logger, async () => {
        if (method === "tasks/get") return tasks.get(taskId, request.signal);
        if (method === "tasks/update") await tasks.update(taskId, isRecord(params?.["inputResponses"]) ? params["inputResponses"] : {});
        else await tasks.cancel(taskId);
        return {};
      });
      return reply(200, isRpcError(answer) ? answer : rpcResult(id, answer));
    }
    default:
      return reply(200, rpcError(id, -32601, `method not found: ${method}`));
  }
}

// --- internals ---

function wantsTasks(meta: Record<string, unknown>): boolean {
  const capabilities = meta["io.modelcontextprotocol/clientCapabilities"];
  return isRecord(capabilities) && isRecord(capabilities["extensions"]) && isRecord(capabilities["extensions"][TASKS_EXTENSION]);
}

interface RpcError {
  jsonrpc: "2.0";
  id: string | number | null;
  error: { code: number; message: string; data?: unknown };
}

const isRpcError = (value: unknown): value is RpcError => isRecord(value) && value["jsonrpc"] === "2.0" && isRecord(value["error"]);

/**
 * Runs a task operation; an `HTTPError` (unknown task, a call not parked, already decided, bad
 * arguments) becomes a JSON-RPC error carrying its code, anything else is logged as internal.
 */
async function settle<T>(id: string | number, logger: HostLogger, run: () => Promise<T>): Promise<T | RpcError> {
  try {
    return await run();
  } catch (error) {
    if (HTTPError.isError(error)) return rpcError(id, -32602, error.message, { error: error.code, status: error.status });
    logger.error("[mcp] task operation failed", error);
    return rpcError(id, -32603, "internal error");
  }
}

async function callTool(id: string | number, params: Record<string, unknown> | undefined, signal: AbortSignal, options: ModernOptions): Promise<unknown> {
  const name = params?.["name"];
  const tool = options.tools.find((candidate) => candidate.name === name);
  if (!tool) return rpcError(id, -32602, `unknown tool ${JSON.stringify(name)}; available: ${options.tools.map((t) => t.name).join(", ")}`);
  const args = isRecord(params?.["arguments"]) ? params["arguments"] : {};
  try {
    return rpcResult(id, await tool.call(args, signal));
  } catch (error) {
    if (HTTPError.isError(error)) return rpcResult(id, errorToolResult(error));
    options.logger.error(`[mcp] tool ${tool.name} failed`, error);
    return rpcError(id, -32603, "internal error");
  }
}

/** Every result of the revision says what kind it is; these tools always answer whole (`complete`). */
const rpcResult = (id: string | number, result: object): unknown => ({ jsonrpc: "2.0", id, result: { resultType: "complete", ...result } });

export const rpcError = (id: string | number | null, code: number, message: string, data?: unknown): RpcError => ({
  jsonrpc: "2.0",
  id,
  error: { code, message, ...(data === undefined ? {} : { data }) },
});

export const reply = (status: number, body: unknown): Response => new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);
