/**
 * Errors a storage driver raises that the core turns into answers (see docs/design/storage.md).
 * @module
 */

/**
 * The store cannot take writes for now: the disk is full, the store is read-only, or an I/O error
 * stopped a commit. Drivers throw it (with the driver's own error as `cause`); the HTTP layer
 * answers 503 `storage_unavailable`, and a turn that meets it fails where it can still be recorded.
 */
export class StorageUnavailableError extends Error {
  override readonly name = "StorageUnavailableError";
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
  static isError(value: unknown): value is StorageUnavailableError {
    return value instanceof Error && value.name === "StorageUnavailableError";
  }
}
