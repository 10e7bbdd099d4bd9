/**
 * Errors a storage driver raises that the core turns into answers (see docs/design/storage.md).
 * @module
 */
export { StorageUnavailableError } from "../errors.ts";
