/**
 * How the loader imports a project's files. Each runtime adapter supplies its own importer
 * (`agent-serve/node`: Node's loader with module hooks; `agent-serve/bun` and `agent-serve/deno`:
 * their native TypeScript loading); see `docs/guide/embedding.md`.
 * @module
 */
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import { RELOAD_PARAM, currentGeneration, installModuleHooks } from "./module-hooks.ts";
import { withSourceLocation } from "./syntax-error.ts";

/** Imports one project file (absolute path) and resolves with its module namespace. */
export type ModuleImporter = (file: string) => Promise<Record<string, unknown>>;

let current: ModuleImporter | undefined;

/** Makes `importer` the one the loader uses from now on, for this process. */
export function setModuleImporter(importer: ModuleImporter): void {
  current = importer;
}

/** Imports a project file with the importer in use; Node's unless an adapter set another. */
export function importProjectModule(file: string): Promise<Record<string, unknown>> {
  return (current ?? importWithNodeHooks)(file);
}

/**
 * Imports a project file with Node's own loader and type stripping, hooks installed.
 *
 * `require(esm)` comes first because it is never rewritten: bundlers and test runners that
 * transform `import()` would otherwise load the project through their own resolver and miss the
 * hooks. Modules with top-level await cannot be required; they take the `import()` path.
 */
export async function importWithNodeHooks(file: string): Promise<Record<string, unknown>> {
  installModuleHooks();
  const generation = currentGeneration();
  // After a reload a module must be evaluated afresh: a new URL is a new module, and the resolve
  // hook gives the project files it imports the same mark (see module-hooks.ts).
  if (generation > 0) return (await import(`${pathToFileURL(file).href}?${RELOAD_PARAM}=${generation}`)) as Record<string, unknown>;
  try {
    try {
      return require(file) as Record<string, unknown>;
    } catch (error) {
      if (!isAsyncModuleError(error)) throw error;
      return (await import(pathToFileURL(file).href)) as Record<string, unknown>;
    }
  } catch (error) {
    // A syntax error says where, with a code frame; the path is shown as the importer sees it.
    throw withSourceLocation(error, file, projectRootOf(file));
  }
}

/** The runtime's own `import()`, for runtimes that load TypeScript natively. */
export async function importNatively(file: string): Promise<Record<string, unknown>> {
  return (await import(pathToFileURL(file).href)) as Record<string, unknown>;
}

// --- internals ---

const require = createRequire(import.meta.url);

/** The folder holding `bot/` (or `agent/`) above `file`, for project-relative paths in messages. */
function projectRootOf(file: string): string | undefined {
  const match = /^(.*?)[\\/](?:bot|agent|evals)[\\/]/.exec(file);
  return match?.[1];
}

function isAsyncModuleError(error: unknown): boolean {
  return typeof error === "object" && error !== null && "code" in error && error.code === "ERR_REQUIRE_ASYNC_MODULE";
}
