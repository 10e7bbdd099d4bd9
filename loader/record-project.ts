/**
 * Loads a project from disk while noting every file the loader reads, every module it imports
 * and every path it looks at: what a build embeds so the same load runs later from a snapshot,
 * without a filesystem (docs/guide/cloudflare.md "Build").
 * @module
 */
import type { ProjectDefinition } from "../src/base/definitions/project.ts";
import { loadProjectFrom } from "./load-from-source.ts";
import { nodeProjectSource } from "./node-project-source.ts";
import { joinPath } from "./project-source.ts";
import type { ProjectSource } from "./project-source.ts";
import { probeSandbox } from "./workspace/sandbox.ts";

/** A project as a build sees it: absolute root, embedded text files, module paths to import. */
export interface RecordedProject {
  /** Absolute project folder. */
  root: string;
  dirName: string;
  /** Project-relative path to contents: every text file the load read. */
  files: Record<string, string>;
  /** Project-relative paths of the definition modules the load imported, sorted. */
  modules: string[];
  /** Other paths the load saw (a trailing `/` marks a folder), sorted. */
  listed: string[];
}

/** Loads `dir` exactly as `loadProject` does and returns what the load touched. */
export async function recordProject(dir: string): Promise<{ project: ProjectDefinition; recorded: RecordedProject }> {
  const inner = nodeProjectSource(dir);
  const files: Record<string, string> = {};
  const modules = new Set<string>();
  const seen = new Map<string, "file" | "directory">();
  const see = (path: string, directory: boolean): void => {
    if (path !== "" && seen.get(path) !== "directory") seen.set(path, directory ? "directory" : "file");
  };
  const source: ProjectSource = {
    root: inner.root,
    dirName: inner.dirName,
    async list(path) {
      const entries = await inner.list(path);
      see(path, true);
      for (const entry of entries) see(joinPath(path, entry.name), entry.kind === "directory");
      return entries;
    },
    exists(path) {
      const found = inner.exists(path);
      if (found) see(path, inner.isDirectory(path));
      return found;
    },
    isDirectory(path) {
      const directory = inner.isDirectory(path);
      if (directory) see(path, true);
      return directory;
    },
    async readText(path) {
      const text = await inner.readText(path);
      files[path] = text;
      return text;
    },
    async importModule(path) {
      const namespace = await inner.importModule(path);
      modules.add(path);
      return namespace;
    },
    // A folder the local harness copies: its files go into the snapshot as text, so a folder skill
    // still reaches a worker (as the module form's files).
    async localFolder(path) {
      await embedFolder(source, path);
      return inner.localFolder!(path);
    },
  };
  const project = await loadProjectFrom(source, { probeSandbox: () => probeSandbox() });
  const listed = [...seen]
    .filter(([path]) => files[path] === undefined && !modules.has(path))
    .map(([path, kind]) => (kind === "directory" ? `${path}/` : path))
    .sort();
  return { project, recorded: { root: inner.root!, dirName: inner.dirName, files, modules: [...modules].sort(), listed } };
}

// --- internals ---

/** Reads every file below `dir` through `source` (so it is recorded); the workspace seed is left out. */
async function embedFolder(source: ProjectSource, dir: string): Promise<void> {
  if (dir.endsWith("/sandbox/workspace")) return;
  for (const entry of await source.list(dir)) {
    if (entry.name === ".git" || entry.name === "node_modules") continue;
    const path = `${dir}/${entry.name}`;
    if (entry.kind === "directory") await embedFolder(source, path);
    else if (entry.kind === "file") await source.readText(path);
  }
}
