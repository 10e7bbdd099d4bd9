/**
 * Byte-level work on one NDJSON log file: counting lines (with a sparse offset index) and
 * streaming a range of lines back. Both read in large chunks and split on `\n` bytes, so a
 * 100,000-line log is a few hundred reads, not one per line.
 * @module
 */

import { constants } from "node:fs";
import { mkdir, open, type FileHandle } from "node:fs/promises";
import { dirname } from "node:path";
import { hasCode, isMissing } from "./_fs.ts";

/** Bytes per read; large enough that syscalls are not the cost, small enough to stay in cache. */
const CHUNK = 256 * 1024;
/** One offset is kept per this many lines; also the largest batch `read` yields. */
export const INDEX_STRIDE = 1024;

const NEWLINE = 10;

export interface ScanResult {
  /** Complete lines found (each ends in `\n`). */
  lines: number;
  /** Byte offset just past the last `\n` found, or `start` when there is none. */
  end: number;
}

/**
 * Counts the complete lines in `[start, size)`, where `start` is the offset of line `firstLine`.
 * Pushes onto `offsets` the start of every line whose index is a multiple of `INDEX_STRIDE`
 * (including the line that would follow the last one). Bytes after the last `\n` are a torn
 * tail: they are not counted and `end` stops before them.
 */
export async function scanLines(
  handle: FileHandle,
  start: number,
  size: number,
  firstLine: number,
  offsets: number[],
): Promise<ScanResult> {
  const buffer = Buffer.allocUnsafe(Math.min(CHUNK, Math.max(size - start, 1)));
  let position = start;
  let line = firstLine;
  let end = start;
  while (position < size) {
    const { bytesRead } = await handle.read(buffer, 0, Math.min(buffer.length, size - position), position);
    if (bytesRead === 0) break;
    const view = buffer.subarray(0, bytesRead);
    for (let at = view.indexOf(NEWLINE); at !== -1; at = view.indexOf(NEWLINE, at + 1)) {
      line++;
      end = position + at + 1;
      if (line % INDEX_STRIDE === 0) offsets.push(end);
    }
    position += bytesRead;
  }
  return { lines: line - firstLine, end };
}

export interface LineRange {
  /** Byte offset of line `line`, taken from the sparse index. */
  position: number;
  line: number;
  /** Committed bytes: nothing at or after this offset is read. */
  limit: number;
  /** First line to yield (`>= line`). */
  from: number;
  /** One past the last line to yield. */
  end: number;
}

/** A `read`'s range pinned to the file it was taken from. */
export type LogSnapshot = LineRange & { path: string; ino: number };

/** Yields lines `[from, end)` in batches of at most `INDEX_STRIDE`, scanning from `position`. */
export async function* readLines(handle: FileHandle, range: LineRange): AsyncGenerator<string[]> {
  const { limit, from, end } = range;
  let { position, line } = range;
  const buffer = Buffer.allocUnsafe(Math.min(CHUNK, Math.max(limit - position, 1)));
  let carry: Buffer | undefined;
  let batch: string[] = [];
  while (position < limit && line < end) {
    const { bytesRead } = await handle.read(buffer, 0, Math.min(buffer.length, limit - position), position);
    if (bytesRead === 0) break;
    position += bytesRead;
    const view = buffer.subarray(0, bytesRead);
    let start = 0;
    for (let at = view.indexOf(NEWLINE); at !== -1 && line < end; at = view.indexOf(NEWLINE, start)) {
      if (line >= from) {
        batch.push(
          carry ? Buffer.concat([carry, view.subarray(start, at)]).toString("utf8") : view.toString("utf8", start, at),
        );
        if (batch.length === INDEX_STRIDE) {
          yield batch;
          batch = [];
        }
      }
      carry = undefined;
      line++;
      start = at + 1;
    }
    if (line >= end) break;
    // A line that continues in the next chunk; copied because `buffer` is reused.
    if (start < bytesRead) carry = Buffer.concat(carry ? [carry, view.subarray(start)] : [view.subarray(start)]);
  }
  if (batch.length > 0) yield batch;
}

/**
 * Streams a snapshot taken on the log's chain. The file is opened only when iteration starts, so
 * a read that is never iterated holds no descriptor.
 */
export async function* streamSnapshot(snapshot: Promise<LogSnapshot | undefined>): AsyncGenerator<string[]> {
  const range = await snapshot;
  if (!range) return;
  let handle: FileHandle;
  try {
    handle = await open(range.path, "r");
  } catch (error) {
    if (isMissing(error)) return; // deleted after the snapshot
    throw error;
  }
  try {
    // Deleted and re-created after the snapshot: the lines it promised are gone.
    if ((await handle.stat()).ino !== range.ino) return;
    yield* readLines(handle, range);
  } finally {
    await handle.close();
  }
}

/** `O_DSYNC`, or undefined where the platform has no such flag (Windows). */
// SAFETY: the typings declare it always present; it is not on every platform.
export const DSYNC = constants.O_DSYNC as number | undefined;

/** Handles opened for reading only, because the file or its file system cannot be written. */
const readOnlyHandles = new WeakSet<FileHandle>();

/** Whether `handle` was opened read-only (a read-only state root): appends must reopen it. */
export const isReadOnlyHandle = (handle: FileHandle): boolean => readOnlyHandles.has(handle);

/**
 * Opens for reading (scans) and appending; without `create`, a missing file gives undefined, and
 * a file that cannot be opened for writing (read-only mount or permissions) is opened read-only
 * so reads still work (docs/design/faults.md).
 */
export async function openLogFile(path: string, create: boolean, dsync: boolean): Promise<FileHandle | undefined> {
  const flags = constants.O_RDWR | constants.O_APPEND | (create ? constants.O_CREAT : 0) | (dsync ? (DSYNC ?? 0) : 0);
  try {
    return await open(path, flags, 0o644);
  } catch (error) {
    if (!create && isMissing(error)) return undefined;
    if (!create && hasCode(error, "EROFS", "EACCES", "EPERM")) return openReadOnly(path);
    if (!(create && hasCode(error, "ENOENT"))) throw error;
  }
  // Directories are created lazily, on the first append to a log under them.
  await mkdir(dirname(path), { recursive: true });
  return open(path, flags, 0o644);
}

async function openReadOnly(path: string): Promise<FileHandle | undefined> {
  try {
    const handle = await open(path, "r");
    readOnlyHandles.add(handle);
    return handle;
  } catch (error) {
    if (isMissing(error)) return undefined;
    throw error;
  }
}

/** Writes all of `bytes` (a regular file may take fewer per call). */
export async function writeAll(handle: FileHandle, bytes: Buffer): Promise<void> {
  let written = 0;
  while (written < bytes.length) {
    const { bytesWritten } = await handle.write(bytes, written, bytes.length - written);
    written += bytesWritten;
  }
}

/** Lines are stored as given, one per `\n`-terminated line, so they cannot contain one. */
export function assertLines(lines: string[]): void {
  if (!Array.isArray(lines)) throw new TypeError("[agent-serve] [storage] lines must be an array of strings");
  for (const line of lines) {
    if (typeof line !== "string" || line.includes("\n")) {
      throw new Error("[agent-serve] [storage] a log line must be a string without a newline");
    }
  }
}
