/**
 * Resolve hooks that let an agent project load under Node's own type stripping:
 *
 * - `agent-serve` and `agent-serve/<subpath>` resolve to this package, even when the project does
 *   not depend on it, so a project and the host share one copy of every `define*` helper;
 * - the Agent SDK's module names (`@cursor/bdk`, `@grok/agent-sdk` and their subpaths) alias to
 *   `agent-serve` and `agent-serve/<subpath>`, so existing projects run unchanged;
 * - host dependencies a project uses without installing (`valibot`, `zod`,
 *   `@valibot/to-json-schema`) fall back to this package's copy;
 * - extensionless relative imports (`./lib/x`) find `x.ts`, `x.js` or `x/index.ts`, and `./x.js`
 *   finds `x.ts`, as bundlers and `tsc` allow but Node's resolver does not.
 * @module
 */
import { existsSync, statSync } from "node:fs";
import * as nodeModule from "node:module";
import type { ResolveFnOutput, ResolveHookContext } from "node:module";
import { FROM_SOURCE, SOURCE_CONDITION, packageFile } from "./package-root.ts";

const SELF = "agent-serve";
const SDK_ALIASES = ["@cursor/bdk", "@grok/agent-sdk"];
const HOST_DEPS = new Set(["valibot", "zod", "@valibot/to-json-schema"]);
const EXTENSIONS = [".ts", ".js", ".mts", ".mjs", "/index.ts", "/index.js"];

/**
 * The package's own manifest: resolving from it makes `agent-serve` a self-reference, from the
 * sources and from `dist/` alike.
 */
const SELF_PARENT = packageFile("package.json").href;

let installed = false;

/** The query parameter that marks a module graph loaded after a reload (`dev`). */
export const RELOAD_PARAM = "agent-serve-reload";
let generation = 0;

/**
 * Starts a new generation of project modules: the next loads evaluate every project file afresh
 * (`dev` reloads). Earlier generations stay in Node's module cache: a dev server's memory grows a
 * little with each reload, a price for reloading without a restart.
 */
export function nextProjectGeneration(): number {
  return ++generation;
}

export function currentGeneration(): number {
  return generation;
}

/** Installs the hooks for this process. Safe to call more than once. */
export function installModuleHooks(): void {
  if (installed) return;
  installed = true;
  // A namespace import: Bun has no `registerHooks`, and a named import would fail to link there.
  nodeModule.registerHooks({ resolve: resolveHook });
}

type NextResolve = (specifier: string, context?: Partial<ResolveHookContext>) => ResolveFnOutput;

// --- internals ---

function resolveHook(specifier: string, context: ResolveHookContext, next: NextResolve): ResolveFnOutput {
  const resolved = resolveProjectSpecifier(specifier, context, next);
  const mark = context.parentURL ? reloadMark(context.parentURL) : undefined;
  // A reloaded module's own project files (relative imports, never packages) load in its generation too.
  const projectFile = specifier.startsWith(".") || specifier.startsWith("/") || specifier.startsWith("file:");
  if (mark && projectFile && resolved.url.startsWith("file:") && !resolved.url.includes("/node_modules/") && !resolved.url.includes("?")) {
    return { ...resolved, url: `${resolved.url}?${mark}` };
  }
  return resolved;
}

function reloadMark(url: string): string | undefined {
  const query = url.indexOf("?");
  if (query === -1) return undefined;
  const param = new URLSearchParams(url.slice(query + 1)).get(RELOAD_PARAM);
  return param === null ? undefined : `${RELOAD_PARAM}=${param}`;
}

function resolveProjectSpecifier(specifier: string, context: ResolveHookContext, next: NextResolve): ResolveFnOutput {
  const target = toSelfSpecifier(specifier);
  if (target !== undefined) return resolveSelf(specifier, target, context, next);
  try {
    return next(specifier, context);
  } catch (error) {
    const fallback = fallbackResolve(specifier, context, next, error);
    if (fallback) return fallback;
    throw error;
  }
}

/** `agent-serve/x`, or the Agent SDK alias of it; `undefined` for any other specifier. */
function toSelfSpecifier(specifier: string): string | undefined {
  for (const name of [SELF, ...SDK_ALIASES]) {
    if (specifier === name) return SELF;
    if (specifier.startsWith(`${name}/`)) return `${SELF}${specifier.slice(name.length)}`;
  }
  return undefined;
}

function resolveSelf(
  specifier: string,
  target: string,
  context: ResolveHookContext,
  next: NextResolve,
): ResolveFnOutput {
  try {
    // From a checkout the sources serve `agent-serve/*`, so a project and the host share them.
    const conditions = FROM_SOURCE ? [SOURCE_CONDITION, ...context.conditions] : context.conditions;
    return { ...next(target, { ...context, conditions, parentURL: SELF_PARENT }), shortCircuit: true };
  } catch (error) {
    const code = errorCode(error);
    const subpath = target === SELF ? "." : `.${target.slice(SELF.length)}`;
    const hint = specifier === target ? "" : ` (imported as "${specifier}")`;
    if (code === "ERR_PACKAGE_PATH_NOT_EXPORTED") {
      throw loaderError(`agent-serve has no module "${subpath}"${hint}; it is not supported by this host`, code);
    }
    if (code === "ERR_MODULE_NOT_FOUND") {
      throw loaderError(`agent-serve module "${subpath}"${hint} is missing from this installation`, code);
    }
    throw error;
  }
}

function fallbackResolve(
  specifier: string,
  context: ResolveHookContext,
  next: NextResolve,
  error: unknown,
): ResolveFnOutput | undefined {
  const code = errorCode(error);
  if (code !== "ERR_MODULE_NOT_FOUND" && code !== "ERR_UNSUPPORTED_DIR_IMPORT") return undefined;
  if (HOST_DEPS.has(packageName(specifier))) {
    return { ...next(specifier, { ...context, parentURL: SELF_PARENT }), shortCircuit: true };
  }
  if (isRelative(specifier) && context.parentURL?.startsWith("file:")) {
    const url = findWithExtension(specifier, context.parentURL);
    if (url) return next(url, context);
  }
  return undefined;
}

function findWithExtension(specifier: string, parentURL: string): string | undefined {
  const bases = [specifier];
  // TypeScript's NodeNext style: `./x.js` in source means `./x.ts` on disk.
  if (/\.[mc]?js$/.test(specifier)) bases.unshift(specifier.replace(/\.([mc]?)js$/, ".$1ts"));
  for (const base of bases) {
    const candidates = base === specifier ? EXTENSIONS.map((ext) => base + ext) : [base];
    for (const candidate of candidates) {
      const url = new URL(candidate, parentURL);
      if (isFile(url)) return url.href;
    }
  }
  return undefined;
}

function isFile(url: URL): boolean {
  try {
    return existsSync(url) && statSync(url).isFile();
  } catch {
    return false;
  }
}

function isRelative(specifier: string): boolean {
  return specifier.startsWith("./") || specifier.startsWith("../") || specifier === "." || specifier === "..";
}

function packageName(specifier: string): string {
  const parts = specifier.split("/");
  return specifier.startsWith("@") ? parts.slice(0, 2).join("/") : (parts[0] ?? "");
}

function loaderError(message: string, code: string): Error {
  return Object.assign(new Error(`[agent-serve] [loader] ${message}`), { code });
}

function errorCode(error: unknown): string | undefined {
  if (typeof error !== "object" || error === null || !("code" in error)) return undefined;
  return typeof error.code === "string" ? error.code : undefined;
}
