/**
 * Small file-system helpers shared by the fs driver's parts.
 * @module
 */

import { mkdir, open, rename, rm } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { StorageUnavailableError } from "../../src/storage/errors.ts";

/** Whether `error` is a Node system error with one of `codes`. */
export function hasCode(error: unknown, ...codes: string[]): boolean {
  return (
    typeof error === "object" &&
    error !== null &&
    "code" in error &&
    typeof error.code === "string" &&
    codes.includes(error.code)
  );
}

/** The path is absent, or a parent of it is a file, so nothing can be stored there yet. */
export function isMissing(error: unknown): boolean {
  return hasCode(error, "ENOENT", "ENOTDIR");
}

/**
 * System errors that mean the store cannot take writes for now (full disk or quota, read-only
 * mount or permissions, I/O failure) rather than a bug: they become `StorageUnavailableError`,
 * which the host answers with 503 `storage_unavailable` (docs/design/faults.md).
 */
const UNAVAILABLE_CODES = ["ENOSPC", "EDQUOT", "EROFS", "EIO", "EACCES", "EPERM", "EMFILE", "ENFILE"];

/** `error` as `StorageUnavailableError` when it is one of the codes above; otherwise unchanged. */
export function toStorageError(error: unknown): unknown {
  // A recursive mkdir on a read-only mount reports ENOENT, not EROFS (the parent it could not make).
  const cannotMakeDir = hasCode(error, "ENOENT") && (error as { syscall?: unknown }).syscall === "mkdir";
  if (!cannotMakeDir && !hasCode(error, ...UNAVAILABLE_CODES)) return error;
  const code = (error as { code: string }).code;
  return new StorageUnavailableError(`[agent-serve] [storage] the store cannot take writes (${code})`, { cause: error });
}

/** Runs `work`, rethrowing store outages as `StorageUnavailableError`. */
export async function guarded<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw toStorageError(error);
  }
}

let tempCounter = 0;

/**
 * Replaces `path` with `data` so that readers see the old or the new content, never a mix: the
 * bytes go to a temp file in the same directory (same file system, so `rename` is atomic) that is
 * renamed over the target. With `sync`, the temp file is fsynced before the rename and the
 * directory after it, so the new content survives power loss once this resolves.
 */
export async function writeFileAtomic(path: string, data: string, sync: boolean): Promise<void> {
  const dir = dirname(path);
  // Temp names end in `.tmp`, never `.json`/`.ndjson`/`.lock`, so `list` and leases skip them.
  const temp = join(dir, `.${basename(path)}.${process.pid}.${++tempCounter}.tmp`);
  try {
    await writeNew(temp, data, sync);
  } catch (error) {
    if (!hasCode(error, "ENOENT")) throw error;
    await mkdir(dir, { recursive: true });
    await writeNew(temp, data, sync);
  }
  try {
    await rename(temp, path);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
  if (sync) await syncDirectory(dir);
}

/**
 * Creates `path` with `data` only if it does not exist yet (`O_EXCL`). Resolves false when it
 * already exists. Missing parent directories are created.
 */
export async function writeFileExclusive(path: string, data: string, sync: boolean): Promise<boolean> {
  try {
    await writeNew(path, data, sync);
    return true;
  } catch (error) {
    if (hasCode(error, "EEXIST")) return false;
    if (!hasCode(error, "ENOENT")) throw error;
  }
  await mkdir(dirname(path), { recursive: true });
  try {
    await writeNew(path, data, sync);
    return true;
  } catch (error) {
    if (hasCode(error, "EEXIST")) return false;
    throw error;
  }
}

/** Makes a directory entry (a new or renamed file) durable; fsync of the file alone is not enough. */
export async function syncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, "r");
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

// --- internals ---

async function writeNew(path: string, data: string, sync: boolean): Promise<void> {
  const handle = await open(path, "wx", 0o644);
  try {
    await handle.writeFile(data, "utf8");
    if (sync) await handle.sync();
  } catch (error) {
    await handle.close();
    await rm(path, { force: true });
    throw error;
  }
  await handle.close();
}
