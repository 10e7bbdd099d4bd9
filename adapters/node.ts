/**
 * Node adapter: binds `host.fetch` to a real port with srvx, and loads agent projects with Node's
 * own type stripping and the package's module hooks. It only moves bytes; every behaviour lives
 * in the host.
 * @example
 * import { createHost, serveNode } from "agent-serve/node";
 * const server = await serveNode(createHost({ agents }), { port: 0 });
 * console.log(server.url);
 * @example
 * import { serveProject } from "agent-serve/node";
 * const { server } = await serveProject("./my-agent", { port: 3000 });
 * @module
 */
import { serve as srvxServe } from "srvx/node";
import { importWithNodeHooks } from "../loader/import-module.ts";
import { loadProjectWith, serveProjectWith } from "./_project.ts";
import type { LoadedProjects, LoadProjectOptions, ProjectRuntime, ServedProject, ServeProjectOptions } from "./_project.ts";
import { serveWith } from "./_serve.ts";
import type { FetchHandler, RunningServer, ServeOptions } from "./_serve.ts";

export { createHost } from "../src/host/host.ts";
export { readPlaygroundSite } from "../loader/playground-site.ts";
export { createProjectHost } from "./_project.ts";
export type { LoadedProjects, LoadProjectOptions, ProjectHostOptions, ServedProject, ServeProjectOptions } from "./_project.ts";
export type { FetchHandler, RunningServer, ServeOptions } from "./_serve.ts";
export type { ModuleImporter } from "../loader/import-module.ts";
/** @deprecated the same as {@link ServeOptions} */
export type ServeNodeOptions = ServeOptions;
/** @deprecated the same as {@link RunningServer} */
export type NodeServer = RunningServer;

/** How Node runs agent projects: its own loader with the package's module hooks. */
export const nodeRuntime: ProjectRuntime = { importModule: importWithNodeHooks, serve: srvxServe };

/** Serves `host` on a real port. */
export function serve(host: FetchHandler, options?: ServeOptions): Promise<RunningServer> {
  return serveWith(srvxServe, host, options);
}

/** The same as {@link serve}; the name the Node adapter had first. */
export const serveNode: typeof serve = serve;

/** Discovers and loads the agent projects of `dir` (a project, or a folder of projects). */
export function loadProject(dir: string, options?: LoadProjectOptions): Promise<LoadedProjects> {
  return loadProjectWith(nodeRuntime, dir, options);
}

/** Loads `dir`, creates its host and serves it; rejects listing the errors when a project has any. */
export function serveProject(dir: string, options?: ServeProjectOptions): Promise<ServedProject> {
  return serveProjectWith(nodeRuntime, dir, options);
}
