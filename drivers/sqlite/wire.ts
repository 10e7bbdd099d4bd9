/**
 * Errors across the writer thread's message port: the driver's conflict errors keep their class,
 * SQLite errors keep the codes `storageError` reads.
 * @module
 */
import { LogConflictError, RecordConflictError } from "../../src/base/storage/types.ts";

export interface WireError {
  name: string;
  message: string;
  errcode?: number;
  code?: string;
  log?: string;
  expectedIndex?: number;
  actualIndex?: number;
  key?: string;
}

export function encodeError(error: unknown): WireError {
  if (!(error instanceof Error)) return { name: "Error", message: String(error) };
  const fields = error as Error & Partial<WireError>;
  return {
    name: error.name,
    message: error.message,
    ...(typeof fields.errcode === "number" ? { errcode: fields.errcode } : {}),
    ...(typeof fields.code === "string" ? { code: fields.code } : {}),
    ...(LogConflictError.isError(error) ? { log: error.log, expectedIndex: error.expectedIndex, actualIndex: error.actualIndex } : {}),
    ...(RecordConflictError.isError(error) ? { key: error.key } : {}),
  };
}

export function decodeError(wire: WireError): Error {
  if (wire.name === "LogConflictError") return new LogConflictError(wire.log ?? "", wire.expectedIndex ?? 0, wire.actualIndex ?? 0);
  if (wire.name === "RecordConflictError") return new RecordConflictError(wire.key ?? "");
  return Object.assign(new Error(wire.message), {
    ...(wire.errcode === undefined ? {} : { errcode: wire.errcode }),
    ...(wire.code === undefined ? {} : { code: wire.code }),
  });
}
