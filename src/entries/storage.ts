/**
 * The storage port: key/value records, append-only logs and short leases, plus the in-memory
 * driver. The embedded durable driver is `agent-serve/storage/sqlite`.
 *
 * @example
 * import { createMemoryStorage } from "agent-serve/storage";
 * const storage = createMemoryStorage();
 * const index = await storage.append("sessions/s1/events", ['{"type":"turn.started"}']);
 * @module
 */

export type { StorageDriver } from "../base/storage/types.ts";
export { assertKey, assertPrefix, LogConflictError } from "../base/storage/types.ts";
export { createMemoryStorage } from "../base/storage/memory.ts";
export type { CommitBatch, FollowListener, LogAppend, RecordWrite, StorageCapabilities } from "../base/storage/types.ts";
export { RecordConflictError } from "../base/storage/types.ts";
export { StorageUnavailableError } from "../base/storage/errors.ts";
export { updateRecord } from "../base/storage/update.ts";
export { copyStorage } from "../base/storage/copy.ts";
export type { CopyReport } from "../base/storage/copy.ts";
