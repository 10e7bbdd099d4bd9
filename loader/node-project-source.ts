/**
 * The project source for a folder on disk: `node:fs` reads, definition modules imported with the
 * importer in use (`import-module.ts`), folders described for the local harness.
 * @module
 */
import { existsSync, statSync } from "node:fs";
import { readFile, readdir, stat } from "node:fs/promises";
import { basename, join, resolve } from "node:path";
import { importProjectModule } from "./import-module.ts";
import type { LocalFolder, ProjectSource, SourceEntry } from "./project-source.ts";
import { walkFiles } from "./workspace/walk.ts";

export function nodeProjectSource(dir: string): ProjectSource {
  const root = resolve(dir);
  const at = (path: string): string => (path === "" ? root : join(root, path));
  return {
    root,
    dirName: basename(root),
    async list(path) {
      const entries = await readdir(at(path), { withFileTypes: true });
      return entries.map((entry): SourceEntry => ({ name: entry.name, kind: entry.isDirectory() ? "directory" : entry.isFile() ? "file" : "other" }));
    },
    exists: (path) => existsSync(at(path)),
    isDirectory(path) {
      try {
        return statSync(at(path)).isDirectory();
      } catch {
        return false;
      }
    },
    readText: (path) => readFile(at(path), "utf8"),
    importModule: (path) => importProjectModule(at(path)),
    localFolder: (path) => describeFolder(at(path)),
  };
}

// --- internals ---

async function describeFolder(dir: string): Promise<LocalFolder> {
  const parts: string[] = [];
  await walkFiles(dir, "", { maxEntries: 1_000_000 }, async (relative, absolute) => {
    const info = await stat(absolute);
    parts.push(`${relative}:${info.size}:${info.mtimeMs}`);
    return true;
  });
  return { dir, digest: parts.join("|"), files: parts.length };
}
