/**
 * Where the loader reads an agent project from: a folder on disk (`node-project-source.ts`) or a
 * snapshot embedded in a bundle (`agent-serve build --target cloudflare`, where the worker has no
 * filesystem; see docs/guide/cloudflare.md "Build"). Paths are project-relative and
 * `/`-separated; `""` is the project folder itself. This module imports nothing runtime-specific.
 * @module
 */

/** One directory entry, as the loader distinguishes them. */
export interface SourceEntry {
  name: string;
  kind: "file" | "directory" | "other";
}

/** A folder as the local harness copies it (folder skills, the workspace seed). */
export interface LocalFolder {
  /** Absolute folder. */
  dir: string;
  /** Changes when a file of the folder changes (names, sizes, modification times). */
  digest: string;
  /** How many files it holds. */
  files: number;
}

export interface ProjectSource {
  /** The project folder on disk, when there is one (`ProjectDefinition.root`). */
  root: string | undefined;
  /** The project folder's name: the last fallback for the display name. */
  dirName: string;
  /** The entries of a folder; throws when it cannot be read. */
  list(dir: string): Promise<SourceEntry[]>;
  /** Whether a file or folder exists at `path`. */
  exists(path: string): boolean;
  isDirectory(path: string): boolean;
  /** A text file's contents; throws when it cannot be read. */
  readText(path: string): Promise<string>;
  /** A definition module's namespace; throws when it cannot be loaded. */
  importModule(path: string): Promise<Record<string, unknown>>;
  /** The folder as it is on disk; only sources with a filesystem have it. */
  localFolder?(path: string): Promise<LocalFolder>;
}

/**
 * A project captured at build time: the text files the loader read, the definition modules it
 * imported (statically imported by the generated worker) and the other paths it saw, so folder
 * listings and the diagnostics about unknown files come out the same.
 */
export interface ProjectSnapshot {
  /** The project folder's name. */
  dirName: string;
  /** The project folder, when the project should know it (tests); a worker has none. */
  root?: string;
  /** Project-relative path to contents. */
  files: Record<string, string>;
  /** Project-relative path to module namespace. */
  modules: Record<string, Record<string, unknown>>;
  /** Other paths that exist (never read); a trailing `/` marks a folder. */
  listed?: string[];
}

/** `a/b` from `a` and `b`, where `""` is the project folder. */
export function joinPath(dir: string, name: string): string {
  return dir === "" ? name : `${dir}/${name}`;
}

/** A source over a {@link ProjectSnapshot}: no filesystem, nothing runtime-specific. */
export function snapshotSource(snapshot: ProjectSnapshot): ProjectSource {
  const kinds = new Map<string, "file" | "directory">([["", "directory"]]);
  const children = new Map<string, Map<string, SourceEntry["kind"]>>();
  const add = (path: string, kind: "file" | "directory"): void => {
    if (path === "" || kinds.get(path) === "directory") return;
    kinds.set(path, kind);
    const slash = path.lastIndexOf("/");
    const parent = slash === -1 ? "" : path.slice(0, slash);
    const siblings = children.get(parent) ?? new Map<string, SourceEntry["kind"]>();
    siblings.set(path.slice(slash + 1), kind);
    children.set(parent, siblings);
    add(parent, "directory");
  };
  for (const path of Object.keys(snapshot.files)) add(path, "file");
  for (const path of Object.keys(snapshot.modules)) add(path, "file");
  for (const path of snapshot.listed ?? []) add(path.replace(/\/+$/, ""), path.endsWith("/") ? "directory" : "file");
  const missing = (path: string): Error => Object.assign(new Error(`ENOENT: no such file or directory, ${path}`), { code: "ENOENT" });
  return {
    root: snapshot.root,
    dirName: snapshot.dirName,
    async list(dir) {
      if (kinds.get(dir) !== "directory") throw missing(dir);
      return [...(children.get(dir) ?? new Map<string, SourceEntry["kind"]>())].map(([name, kind]) => ({ name, kind }));
    },
    exists: (path) => kinds.has(path),
    isDirectory: (path) => kinds.get(path) === "directory",
    async readText(path) {
      const text = snapshot.files[path];
      if (text === undefined) throw missing(path);
      return text;
    },
    async importModule(path) {
      const namespace = snapshot.modules[path];
      if (namespace === undefined) throw new Error(`${path} was not bundled: rebuild the worker`);
      return namespace;
    },
  };
}
