/**
 * The JSON-RPC 2.0 binding (docs/guide/a2a.md "JSON-RPC"): one POST carries one request; the 1.0
 * method names and the 0.3 ones (./legacy.ts) map to the same operations; streaming methods
 * answer Server-Sent Events, one JSON-RPC response per frame. Every failure is a JSON-RPC error
 * object with the protocol's code.
 * @module
 */
import { HTTPError, StorageUnavailableError } from "../../base/errors.ts";
import type { HostLogger } from "../../base/logging.ts";
import { json } from "../../base/responses.ts";
import { A2AError, invalidParams } from "./errors.ts";
import { isObject } from "./incoming.ts";
import { LEGACY_METHODS } from "./legacy.ts";
import { createPushConfig, deletePushConfig, getPushConfig, listPushConfigs } from "./push-configs.ts";
import { type OperationCall, type RpcMethod, cancelTaskOp, extendedCardOp, getTaskOp, listTasksOp, sendMessageOp, sendStreamingOp, subscribeOp } from "./operations.ts";
import type { StreamResponse } from "./wire.ts";

type RpcId = string | number | null;

export const METHODS: Record<string, RpcMethod> = {
  SendMessage: { kind: "unary", run: sendMessageOp },
  SendStreamingMessage: { kind: "stream", run: sendStreamingOp },
  GetTask: { kind: "unary", run: getTaskOp },
  ListTasks: { kind: "unary", run: listTasksOp },
  CancelTask: { kind: "unary", run: cancelTaskOp },
  SubscribeToTask: { kind: "stream", run: subscribeOp },
  CreateTaskPushNotificationConfig: { kind: "unary", run: (call, params) => createPushConfig(call.agent, call.auth, params) },
  GetTaskPushNotificationConfig: { kind: "unary", run: (call, params) => getPushConfig(call.agent, call.auth, params) },
  ListTaskPushNotificationConfigs: { kind: "unary", run: (call, params) => listPushConfigs(call.agent, call.auth, params) },
  DeleteTaskPushNotificationConfig: { kind: "unary", run: (call, params) => deletePushConfig(call.agent, call.auth, params) },
  GetExtendedAgentCard: { kind: "unary", run: extendedCardOp },
};

export interface JsonRpcContext extends OperationCall {
  request: Request;
  logger: HostLogger;
  /** Called once the answer is complete (a stream's end included): drops what `signal` hangs on. */
  release(): void;
}

/** Versions this binding speaks; an absent header means 0.3 (the protocol's rule). */
const VERSIONS = new Set(["1.0", "1", "0.3"]);

export async function handleJsonRpc(context: JsonRpcContext, body: string): Promise<Response> {
  let id: RpcId = null;
  try {
    checkVersion(context.request);
    let envelope: unknown;
    try {
      envelope = JSON.parse(body);
    } catch {
      throw new A2AError("parseError", "the body is not valid JSON");
    }
    if (!isObject(envelope)) throw new A2AError("invalidRequest", Array.isArray(envelope) ? "batch requests are not supported" : "the body must be a JSON-RPC request object");
    if (typeof envelope["id"] === "string" || typeof envelope["id"] === "number") id = envelope["id"];
    if (envelope["jsonrpc"] !== "2.0") throw new A2AError("invalidRequest", 'jsonrpc must be "2.0"');
    if (id === null) throw new A2AError("invalidRequest", "id must be a string or a number (notifications are not used by A2A)");
    const name = envelope["method"];
    if (typeof name !== "string") throw new A2AError("invalidRequest", "method must be a string");
    const legacy = LEGACY_METHODS[name];
    const method = legacy ?? METHODS[name];
    if (!method) throw new A2AError("methodNotFound", `method not found: ${name}`);
    const params = envelope["params"];
    if (params !== undefined && !isObject(params)) throw invalidParams("params must be an object");
    if (method.kind === "unary") {
      const result = await method.run(context, params);
      context.release();
      return json({ jsonrpc: "2.0", id, result });
    }
    return eventStream(id, await method.run(context, params), context);
  } catch (error) {
    context.release();
    return json({ jsonrpc: "2.0", id, error: toRpcError(error, context.logger) });
  }
}

/** Refuses an `A2A-Version` this server does not speak (both bindings). */
export function checkVersion(request: Request): void {
  const version = request.headers.get("a2a-version")?.trim();
  if (version && !VERSIONS.has(version)) throw new A2AError("versionNotSupported", `A2A-Version ${JSON.stringify(version)} is not supported; this server speaks 1.0 and 0.3`);
}

export const SSE_HEADERS: Record<string, string> = {
  "content-type": "text/event-stream; charset=utf-8",
  "cache-control": "no-store",
  "x-content-type-options": "nosniff",
  // Proxies that buffer (nginx) would hold frames back until the buffer fills.
  "x-accel-buffering": "no",
};

/** The JSON-RPC error object for any thrown value; unknown ones are logged and told apart from nothing. */
export function toRpcError(error: unknown, logger: HostLogger): { code: number; message: string } {
  if (A2AError.isError(error)) return { code: error.code, message: error.message };
  if (StorageUnavailableError.isError(error)) return { code: -32603, message: "storage is unavailable right now; retry later" };
  if (HTTPError.isError(error) && error.status < 500) return { code: invalidParams("").code, message: error.message };
  logger.error("[a2a] request failed", error);
  return { code: -32603, message: "internal error" };
}

// --- internals ---

function eventStream(id: RpcId, results: AsyncIterable<unknown>, context: JsonRpcContext): Response {
  const encoder = new TextEncoder();
  const iterator = results[Symbol.asyncIterator]();
  const frame = (value: unknown): Uint8Array => encoder.encode(`data: ${JSON.stringify(value)}\n\n`);
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const next = await iterator.next();
        if (next.done) {
          context.release();
          controller.close();
        } else controller.enqueue(frame({ jsonrpc: "2.0", id, result: next.value as StreamResponse }));
      } catch (error) {
        context.release();
        controller.enqueue(frame({ jsonrpc: "2.0", id, error: toRpcError(error, context.logger) }));
        controller.close();
      }
    },
    async cancel() {
      context.release();
      await iterator.return?.();
    },
  });
  return new Response(body, { status: 200, headers: SSE_HEADERS });
}
