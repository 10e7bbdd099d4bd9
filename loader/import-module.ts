import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import { RELOAD_PARAM, currentGeneration, installModuleHooks } from "./module-hooks.ts";

const require = createRequire(import.meta.url);

/**
 * Imports a project file with Node's own loader and type stripping, hooks installed.
 *
 * `require(esm)` comes first because it is never rewritten: bundlers and test runners that
 * transform `import()` would otherwise load the project through their own resolver and miss the
 * hooks. Modules with top-level await cannot be required; they take the `import()` path.
 */
export async function importProjectModule(file: string): Promise<Record<string, unknown>> {
  installModuleHooks();
  const generation = currentGeneration();
  // After a reload a module must be evaluated afresh: a new URL is a new module, and the resolve
  // hook gives the project files it imports the same mark (see module-hooks.ts).
  if (generation > 0) return (await import(`${pathToFileURL(file).href}?${RELOAD_PARAM}=${generation}`)) as Record<string, unknown>;
  try {
    return require(file) as Record<string, unknown>;
  } catch (error) {
    if (!isAsyncModuleError(error)) throw error;
    return (await import(pathToFileURL(file).href)) as Record<string, unknown>;
  }
}

function isAsyncModuleError(error: unknown): boolean {
  return typeof error === "object" && error !== null && "code" in error && error.code === "ERR_REQUIRE_ASYNC_MODULE";
}
