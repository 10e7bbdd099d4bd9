/**
 * Deno adapter: binds `host.fetch` to a real port with srvx, and loads agent projects with Deno's
 * native TypeScript loading (`docs/guide/embedding.md`, "Bun and Deno").
 * @example
 * import { serveProject } from "agent-serve/deno";
 * const { server } = await serveProject("./my-agent", { port: 3000 });
 * @module
 */
import { serve as srvxServe } from "srvx/deno";
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

/** How Deno runs agent projects: its native `import()` of TypeScript. */
export const denoRuntime: ProjectRuntime = {
  importModule: importNatively,
  serve: srvxServe,
  limits:
    "on Deno, projects load through Deno's own resolver: the Agent SDK module names (@cursor/bdk, @grok/agent-sdk), extensionless relative imports and the fallback to the host's valibot and zod need Node's module hooks; list agent-serve as a dependency of the project (npm install agent-serve) and import it by name",
};

/** Serves `host` on a real port. */
export function serve(host: FetchHandler, options?: ServeOptions): Promise<RunningServer> {
  return serveWith(srvxServe, host, options);
}

/** Discovers and loads the agent projects of `dir` (a project, or a folder of projects). */
export function loadProject(dir: string, options?: LoadProjectOptions): Promise<LoadedProjects> {
  return loadProjectWith(denoRuntime, dir, options);
}

/** Loads `dir`, creates its host and serves it; rejects listing the errors when a project has any. */
export function serveProject(dir: string, options?: ServeProjectOptions): Promise<ServedProject> {
  return serveProjectWith(denoRuntime, dir, options);
}
