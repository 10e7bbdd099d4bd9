/**
 * The storage protocol between Durable Objects (docs/design/cloudflare.md "Storage"): `POST` a JSON
 * list of operations, applied in order, answered with one result each; `follow` is a long NDJSON
 * response. This file is the side of the object that holds the database (the coordinator, or a
 * session object for its session's data); ./remote-storage.ts is the caller's.
 * @module
 */
import { StorageUnavailableError } from "../../src/base/storage/errors.ts";
import { LogConflictError, RecordConflictError, type StorageDriver } from "../../src/base/storage/types.ts";
import { applyMirror, type MirrorWrites } from "./session-mirror.ts";

/** The header that marks a request as this protocol; the worker strips it from outside traffic. */
export const STORAGE_HEADER = "x-agent-serve-storage";

export type WireOp =
  | { op: "commit"; batch: Parameters<StorageDriver["commit"]>[0] }
  | { op: "entries" | "list"; prefix: string }
  | { op: "entriesPage"; prefix: string; after?: string; limit: number }
  | { op: "get" | "length" | "hasLog" | "deleteLog"; key: string }
  | { op: "readPage"; key: string; from: number; to?: number; limit: number }
  | { op: "acquireLease"; key: string; owner: string; ttlMs: number }
  | { op: "releaseLease"; key: string; owner: string }
  | { op: "leaseHolder"; key: string }
  /** A session object's outbox push (./session-mirror.ts): applied once per newer `seq`. */
  | { op: "mirror"; session: string; seq: number; writes: MirrorWrites }
  | { op: "unfollow"; id: string }
  | { op: "openFollows" };

export interface WireRequest {
  namespace: string;
  ops?: WireOp[];
  /** A log to follow instead: the answer streams `{ready, length}` once subscribed, then `{first, lines}`. */
  follow?: string;
  /** The follow's id, for the `unfollow` op that ends it (a cancelled stream may go unnoticed). */
  followId?: string;
}

/**
 * Sends one protocol request and resolves with the response (a stub's `fetch`, or a test's).
 * Declared with the protocol, so both callers (./remote-storage.ts, ./remote-follow.ts) import
 * it from below rather than from each other.
 */
export type StorageTransport = (request: WireRequest, signal?: AbortSignal) => Promise<Response>;

export type WireResult = { ok: true; value?: unknown } | { ok: false; error: WireError };

export interface WireError {
  name: string;
  message: string;
  key?: string;
  log?: string;
  expectedIndex?: number;
  actualIndex?: number;
}

/** A driver that can also say who holds a lease (the Durable Object driver can). */
export type EndpointDriver = StorageDriver & { leaseHolder?(key: string): Promise<string | undefined> };

/**
 * The database holder's end of the protocol: answers requests against the namespace's driver and
 * keeps the open follows, so `unfollow` can end one (workerd may not tell a stream its reader
 * left). `leaseHolder` answers the op of that name; without it the driver's own answers.
 */
export function storageEndpoint(
  driverFor: (namespace: string) => EndpointDriver,
  leaseHolder?: (namespace: string, key: string) => string | undefined,
): (request: Request) => Promise<Response> {
  const follows = new Map<string, () => void>();
  return async (request) => {
    const body = (await request.json()) as WireRequest;
    const driver = driverFor(body.namespace);
    if (body.follow !== undefined) return followResponse(driver, body.follow, body.followId, follows);
    const results: WireResult[] = [];
    // In order, one after the other: the caller relies on call order (appends, reads after writes).
    for (const op of body.ops ?? []) {
      try {
        let value: unknown;
        if (op.op === "leaseHolder") value = leaseHolder ? leaseHolder(body.namespace, op.key) : await driverLeaseHolder(driver, op.key);
        else if (op.op === "unfollow") follows.get(op.id)?.();
        else if (op.op === "openFollows") value = follows.size;
        else value = await apply(driver, op);
        results.push({ ok: true, value });
      } catch (error) {
        results.push({ ok: false, error: toWireError(error) });
      }
    }
    return Response.json(results);
  };
}

/** The error a caller sees for a wire error: the same classes a local driver throws. */
export function fromWireError(error: WireError): Error {
  if (error.name === "RecordConflictError") return new RecordConflictError(error.key ?? "");
  if (error.name === "LogConflictError") return new LogConflictError(error.log ?? "", error.expectedIndex ?? 0, error.actualIndex ?? 0);
  if (error.name === "StorageUnavailableError") return new StorageUnavailableError(error.message);
  return new Error(error.message);
}

// --- internals ---

async function apply(driver: StorageDriver, op: WireOp): Promise<unknown> {
  switch (op.op) {
    case "commit":
      return driver.commit(op.batch);
    case "entries":
      return driver.entries(op.prefix);
    case "list":
      return driver.list(op.prefix);
    case "entriesPage":
      return driver.entriesPage(op.prefix, { ...(op.after === undefined ? {} : { after: op.after }), limit: op.limit });
    case "get":
      return driver.get(op.key);
    case "length":
      return driver.length(op.key);
    case "hasLog":
      return driver.hasLog(op.key);
    case "deleteLog":
      return driver.deleteLog(op.key);
    case "readPage": {
      const end = op.to ?? (await driver.length(op.key));
      const lines: string[] = [];
      for await (const batch of driver.read(op.key, op.from, Math.min(end, op.from + op.limit))) lines.push(...batch);
      return { lines, end };
    }
    case "acquireLease":
      return driver.acquireLease(op.key, op.owner, op.ttlMs);
    case "releaseLease":
      return driver.releaseLease(op.key, op.owner);
    case "mirror":
      return applyMirror(driver, op.session, op.seq, op.writes);
    case "leaseHolder":
    case "unfollow":
    case "openFollows":
      throw new Error(`[agent-serve] [storage] ${op.op} is answered by the endpoint`);
  }
}

function driverLeaseHolder(driver: EndpointDriver, key: string): Promise<string | undefined> {
  if (!driver.leaseHolder) throw new Error("[agent-serve] [storage] this driver cannot say who holds a lease");
  return driver.leaseHolder(key);
}

function toWireError(error: unknown): WireError {
  if (!(error instanceof Error)) return { name: "Error", message: String(error) };
  const fields = error as Error & Partial<WireError>;
  return {
    name: error.name,
    message: error.message,
    ...(fields.key === undefined ? {} : { key: fields.key }),
    ...(fields.log === undefined ? {} : { log: fields.log }),
    ...(fields.expectedIndex === undefined ? {} : { expectedIndex: fields.expectedIndex, actualIndex: fields.actualIndex! }),
  };
}

/** Subscribes before answering (so nothing committed after this request is missed), then streams. */
function followResponse(driver: StorageDriver, log: string, id: string | undefined, follows: Map<string, () => void>): Response {
  const encoder = new TextEncoder();
  let end: (() => void) | undefined;
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      let open = true;
      const send = (value: unknown): void => {
        try {
          controller.enqueue(encoder.encode(`${JSON.stringify(value)}\n`));
        } catch {
          end?.();
        }
      };
      const stop = driver.follow(log, (first, lines) => send({ first, lines }));
      end = () => {
        if (!open) return;
        open = false;
        stop();
        if (id !== undefined) follows.delete(id);
        try {
          controller.close();
        } catch {
          // Already cancelled by the reader.
        }
      };
      if (id !== undefined) follows.set(id, end);
      // The length now, with the follow in place: a follower that subscribes again reads from
      // where it was. (Nothing commits in between: the object runs one piece of code at a time.)
      void driver.length(log).then(
        (length) => send({ ready: true, length }),
        () => send({ ready: true }),
      );
    },
    cancel() {
      end?.();
    },
  });
  return new Response(body, { headers: { "content-type": "application/x-ndjson" } });
}
