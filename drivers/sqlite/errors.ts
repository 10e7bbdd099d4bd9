/**
 * Which SQLite and system failures mean "the store cannot take writes now" (docs/design/storage.md).
 * @module
 */
import { StorageUnavailableError } from "../../src/base/storage/errors.ts";

/** Primary result codes: READONLY, IOERR, CORRUPT, FULL, CANTOPEN, NOTADB. */
const UNAVAILABLE_CODES = new Set([8, 10, 11, 13, 14, 26]);
const UNAVAILABLE_NAMES = /^SQLITE_(READONLY|IOERR|CORRUPT|FULL|CANTOPEN|NOTADB)/;
const UNAVAILABLE_ERRNOS = new Set(["ENOSPC", "EROFS", "EIO", "EDQUOT", "EACCES", "EPERM"]);

/** `error` as a `StorageUnavailableError` when it is one of those failures, else unchanged. */
export function storageError(error: unknown, doing: string): unknown {
  if (StorageUnavailableError.isError(error) || !(error instanceof Error)) return error;
  const fields = error as Error & { errcode?: unknown; code?: unknown };
  const primary = typeof fields.errcode === "number" ? fields.errcode & 0xff : undefined;
  const code = typeof fields.code === "string" ? fields.code : "";
  if ((primary !== undefined && UNAVAILABLE_CODES.has(primary)) || UNAVAILABLE_NAMES.test(code) || UNAVAILABLE_ERRNOS.has(code)) {
    return new StorageUnavailableError(`[agent-serve] [storage] cannot ${doing}: ${error.message}`, { cause: error });
  }
  return error;
}
