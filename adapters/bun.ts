/**
 * Bun adapter: binds `host.fetch` to a real port with srvx, and loads agent projects with Bun's
 * native TypeScript loading (`docs/guide/embedding.md`, "Bun and Deno").
 * @example
 * import { serveProject } from "agent-serve/bun";
 * const { server } = await serveProject("./my-agent", { port: 3000 });
 * @module
 */
import { serve as srvxServe } from "srvx/bun";
import type { OpenSqlite, SqliteDatabase } from "../drivers/sqlite/index.ts";
import { importNatively } from "../loader/import-module.ts";
import { loadProjectWith, serveProjectWith } from "./_project.ts";
import type { LoadedProjects, LoadProjectOptions, ProjectRuntime, ServedProject, ServeProjectOptions } from "./_project.ts";
import { serveWith } from "./_serve.ts";
import type { FetchHandler, RunningServer, ServeOptions } from "./_serve.ts";

export { createHost } from "../src/host/host.ts";
export { createProjectHost } from "./_project.ts";
export type { LoadedProjects, LoadProjectOptions, ProjectHostOptions, ServedProject, ServeProjectOptions } from "./_project.ts";
export type { FetchHandler, RunningServer, ServeOptions } from "./_serve.ts";
export type { ModuleImporter } from "../loader/import-module.ts";

interface BunSqliteModule {
  Database: new (path: string, options: { readonly?: boolean; create?: boolean; readwrite?: boolean }) => SqliteDatabase;
}

/** `bun:sqlite`: the sqlite store's binding on Bun (its writes then run on the event loop). */
const openBunSqlite: OpenSqlite = (path, { readOnly }) => {
  // SAFETY: Bun's synchronous `require` of its built-in module, whose Database has this shape.
  const { Database } = (import.meta as unknown as { require(id: string): BunSqliteModule }).require("bun:sqlite");
  return new Database(path, readOnly ? { readonly: true } : { create: true, readwrite: true });
};

/** How Bun runs agent projects: its native `import()` of TypeScript, and `bun:sqlite`. */
export const bunRuntime: ProjectRuntime = {
  importModule: importNatively,
  serve: srvxServe,
  openSqlite: openBunSqlite,
  limits:
    "on Bun, projects load through Bun's own resolver: the Agent SDK module names (@cursor/bdk, @grok/agent-sdk), extensionless relative imports and the fallback to the host's valibot and zod need Node's module hooks; import agent-serve, installed in the project, by name",
};

/** Serves `host` on a real port. */
export function serve(host: FetchHandler, options?: ServeOptions): Promise<RunningServer> {
  return serveWith(srvxServe, host, options);
}

/** Discovers and loads the agent projects of `dir` (a project, or a folder of projects). */
export function loadProject(dir: string, options?: LoadProjectOptions): Promise<LoadedProjects> {
  return loadProjectWith(bunRuntime, dir, options);
}

/** Loads `dir`, creates its host and serves it; rejects listing the errors when a project has any. */
export function serveProject(dir: string, options?: ServeProjectOptions): Promise<ServedProject> {
  return serveProjectWith(bunRuntime, dir, options);
}
