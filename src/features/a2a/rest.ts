/**
 * The HTTP+JSON binding (docs/guide/a2a.md "HTTP+JSON"): the same operations as JSON-RPC, one
 * URL each, errors as an HTTP status with a `google.rpc.Status` body whose `ErrorInfo` names the
 * protocol's reason, streams as Server-Sent Events of bare results.
 * @module
 */
import { HTTPError, StorageUnavailableError } from "../../base/errors.ts";
import type { HostLogger } from "../../base/logging.ts";
import { json } from "../../base/responses.ts";
import { A2AError, type A2AErrorKind, invalidParams } from "./errors.ts";
import type { OperationCall } from "./operations.ts";

export interface RestCall extends OperationCall {
  logger: HostLogger;
  /** Called once the answer is complete (a stream's end included). */
  release(): void;
}

/**
 * How a binding renders what it answers: the error body under its HTTP status, and each stream
 * result as its `data:` JSON. The 1.0 binding's is the default; the 0.3 one is ./legacy-rest.ts.
 */
export interface RestDialect<T = unknown> {
  error(error: unknown, logger: HostLogger): { status: number; body: unknown };
  frame(result: T): unknown;
}

/** Runs a unary operation: its result as JSON, or the error as the binding renders it. */
export async function restUnary(call: RestCall, run: () => Promise<unknown>, dialect: Pick<RestDialect, "error"> = REST_DIALECT): Promise<Response> {
  try {
    return json(await run());
  } catch (error) {
    return restError(error, call.logger, dialect);
  } finally {
    call.release();
  }
}

/** Runs a streaming operation: Server-Sent Events, one result per `data:` frame; a failure mid-stream is an `error` event. */
export async function restStream<T>(call: RestCall, open: () => Promise<AsyncIterable<T>>, dialect: RestDialect<T> = REST_DIALECT): Promise<Response> {
  let results: AsyncIterable<T>;
  try {
    results = await open();
  } catch (error) {
    call.release();
    return restError(error, call.logger, dialect);
  }
  const encoder = new TextEncoder();
  const iterator = results[Symbol.asyncIterator]();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const next = await iterator.next();
        if (!next.done) return controller.enqueue(encoder.encode(`data: ${JSON.stringify(dialect.frame(next.value))}\n\n`));
        call.release();
        controller.close();
      } catch (error) {
        call.release();
        controller.enqueue(encoder.encode(`event: error\ndata: ${JSON.stringify(dialect.error(error, call.logger).body)}\n\n`));
        controller.close();
      }
    },
    async cancel() {
      call.release();
      await iterator.return?.();
    },
  });
  return new Response(body, { status: 200, headers: SSE_HEADERS });
}

/** The error response of a binding for any thrown value. */
export function restError(error: unknown, logger: HostLogger, dialect: Pick<RestDialect, "error"> = REST_DIALECT): Response {
  const { status, body } = dialect.error(error, logger);
  return json(body, status);
}

/** Reads a non-negative integer query parameter. */
export function intParam(url: URL, name: string): number | undefined {
  const raw = url.searchParams.get(name);
  if (raw === null || raw === "") return undefined;
  if (!/^\d{1,9}$/.test(raw)) throw invalidParams(`${name} must be a non-negative integer`);
  return Number(raw);
}

export const SSE_HEADERS: Record<string, string> = {
  "content-type": "text/event-stream; charset=utf-8",
  "cache-control": "no-store",
  "x-content-type-options": "nosniff",
  "x-accel-buffering": "no",
};

// --- internals ---

/** HTTP status, status name and `ErrorInfo` reason of each error (the protocol's HTTP+JSON mapping). */
const REST: Record<A2AErrorKind, [number, string, string]> = {
  parseError: [400, "INVALID_ARGUMENT", "INVALID_PARAMS"],
  invalidRequest: [400, "INVALID_ARGUMENT", "INVALID_PARAMS"],
  methodNotFound: [404, "NOT_FOUND", "INVALID_PARAMS"],
  invalidParams: [400, "INVALID_ARGUMENT", "INVALID_PARAMS"],
  internalError: [500, "INTERNAL", "INTERNAL_ERROR"],
  taskNotFound: [404, "NOT_FOUND", "TASK_NOT_FOUND"],
  taskNotCancelable: [400, "FAILED_PRECONDITION", "TASK_NOT_CANCELABLE"],
  pushNotificationNotSupported: [400, "FAILED_PRECONDITION", "PUSH_NOTIFICATION_NOT_SUPPORTED"],
  unsupportedOperation: [400, "FAILED_PRECONDITION", "UNSUPPORTED_OPERATION"],
  contentTypeNotSupported: [400, "INVALID_ARGUMENT", "CONTENT_TYPE_NOT_SUPPORTED"],
  extendedCardNotConfigured: [400, "FAILED_PRECONDITION", "EXTENDED_AGENT_CARD_NOT_CONFIGURED"],
  versionNotSupported: [400, "FAILED_PRECONDITION", "VERSION_NOT_SUPPORTED"],
};

function statusOf(error: unknown, logger: HostLogger): { status: number; body: unknown } {
  const { kind, message, status } = classifyError(error, logger);
  const [, name, reason] = REST[kind];
  const info = { "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason, domain: "a2a-protocol.org" };
  return { status, body: { error: { code: status, status: status === 503 ? "UNAVAILABLE" : name, message, details: [info] } } };
}

/** The 1.0 binding: `google.rpc.Status` errors, results as they are. */
const REST_DIALECT: RestDialect = { error: statusOf, frame: (result) => result };

/** What any thrown value is as an A2A error, with the HTTP status the binding answers it with. */
export function classifyError(error: unknown, logger: HostLogger): { kind: A2AErrorKind; message: string; status: number } {
  let kind: A2AErrorKind;
  let message: string;
  let status: number | undefined;
  if (A2AError.isError(error)) [kind, message] = [error.kind, error.message];
  else if (StorageUnavailableError.isError(error)) [kind, message, status] = ["internalError", "storage is unavailable right now; retry later", 503];
  else if (HTTPError.isError(error) && error.status < 500) [kind, message, status] = ["invalidParams", error.message, error.status];
  else {
    logger.error("[a2a] request failed", error);
    [kind, message] = ["internalError", "internal error"];
  }
  return { kind, message, status: status ?? REST[kind][0] };
}
