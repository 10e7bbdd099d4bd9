/**
 * Workspace-confined paths for the harness file tools. A path is resolved against the workspace
 * and refused when it leaves it, lexically (`../../etc/passwd`, an absolute path elsewhere) or
 * through a symlink (a link inside the workspace that points outside it).
 * @module
 */
import { lstat, realpath } from "node:fs/promises";
import { dirname, isAbsolute, relative, resolve, sep } from "node:path";

/** A path the model gave that leaves the workspace; its message goes back to the model. */
export class PathEscapeError extends Error {
  override readonly name = "PathEscapeError";
}

export interface WorkspacePath {
  /** Absolute path as resolved (symlinks kept). */
  path: string;
  /** Workspace-relative, `/`-separated; `.` for the workspace itself. */
  relative: string;
}

/**
 * Resolves `input` inside the workspace `root`. For `read`, the file (after symlinks) must be in
 * the workspace; for `write`, so must the nearest existing ancestor and any link at the path.
 */
export async function resolveInWorkspace(root: string, input: string, mode: "read" | "write"): Promise<WorkspacePath> {
  if (input.includes("\0")) throw new PathEscapeError("the path contains a NUL byte");
  const realRoot = await realpath(root);
  const path = resolve(root, input);
  if (!within(root, path) && !within(realRoot, path)) throw escape(input);
  if (mode === "read") {
    let real: string;
    try {
      real = await realpath(path);
    } catch (error) {
      if (isNotFound(error)) throw new PathEscapeError(`no such file or folder: ${input}`);
      throw error;
    }
    if (!within(realRoot, real)) throw escape(input);
  } else {
    const link = await lstat(path).catch(() => undefined);
    if (link?.isSymbolicLink()) {
      const real = await realpath(path).catch(() => undefined);
      if (real === undefined || !within(realRoot, real)) throw escape(input);
    }
    if (!within(realRoot, await realpath(await nearestExisting(dirname(path))))) throw escape(input);
  }
  return { path, relative: toRelative(within(root, path) ? root : realRoot, path) };
}

/** Whether `path` is `root` or inside it (lexically). */
export function within(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === "" || (!rel.startsWith(`..${sep}`) && rel !== ".." && !isAbsolute(rel));
}

export function toRelative(root: string, path: string): string {
  const rel = relative(root, path);
  return rel === "" ? "." : rel.split(sep).join("/");
}

// --- internals ---

async function nearestExisting(path: string): Promise<string> {
  for (let current = path; ; current = dirname(current)) {
    if (await lstat(current).then(() => true, () => false)) return current;
    if (dirname(current) === current) return current;
  }
}

function escape(input: string): PathEscapeError {
  return new PathEscapeError(`path escapes the workspace: ${input}`);
}

function isNotFound(error: unknown): boolean {
  return typeof error === "object" && error !== null && "code" in error && (error.code === "ENOENT" || error.code === "ENOTDIR");
}
