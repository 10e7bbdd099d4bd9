/**
 * Walking a workspace for `glob` and `grep`, and the glob syntax they share. Symlinks are not
 * followed (a link could lead out of the workspace); `.git` and `node_modules` are skipped.
 * @module
 */
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import picomatch from "picomatch";

const SKIPPED = new Set([".git", "node_modules"]);

export interface WalkLimits {
  /** Entries visited at most; the walk reports when it stopped early. */
  maxEntries: number;
}

/**
 * Visits the files below `dir` (a folder's files before its subfolders, names sorted) with their
 * `/`-separated path relative to the workspace (`prefix` is that of `dir`). `visit` returns false
 * to stop. `complete` is false when the walk stopped early.
 */
export async function walkFiles(
  dir: string,
  prefix: string,
  limits: WalkLimits,
  visit: (relative: string, absolute: string) => boolean | Promise<boolean>,
): Promise<{ complete: boolean }> {
  let budget = limits.maxEntries;
  const stack: Array<{ abs: string; rel: string }> = [{ abs: dir, rel: prefix === "." ? "" : prefix }];
  while (stack.length > 0) {
    const { abs, rel } = stack.pop()!;
    let entries;
    try {
      entries = await readdir(abs, { withFileTypes: true });
    } catch {
      continue;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : 1));
    const dirs: Array<{ abs: string; rel: string }> = [];
    for (const entry of entries) {
      if (--budget < 0) return { complete: false };
      const childRel = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isDirectory()) {
        if (!SKIPPED.has(entry.name)) dirs.push({ abs: join(abs, entry.name), rel: childRel });
      } else if (entry.isFile()) {
        if ((await visit(childRel, join(abs, entry.name))) === false) return { complete: false };
      }
    }
    stack.push(...dirs.reverse());
  }
  return { complete: true };
}

/**
 * A glob as a regular expression over `/`-separated relative paths (picomatch): `**` spans
 * folders, `*` and `?` stay within one, `{a,b}` alternates, `[...]` is a character class. Dot
 * files match like any other: a workspace has no hidden files to protect.
 */
export function globToRegExp(glob: string): RegExp {
  return picomatch.makeRe(glob, { dot: true });
}

/** Refuses globs that could reach outside the workspace. */
export function globProblem(glob: string): string | undefined {
  if (glob.startsWith("/")) return "the pattern must be relative to the workspace";
  if (glob.split("/").includes("..")) return "the pattern must not contain .. segments";
  return undefined;
}
