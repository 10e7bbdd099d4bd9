/**
 * Where this package's own files are, whether it runs from its TypeScript sources (a checkout)
 * or from the compiled `dist/` of an installed package: the nearest folder upwards holding the
 * `package.json` named `agent-serve` (see `docs/guide/embedding.md`, "Installing").
 * @module
 */
import { existsSync, readFileSync } from "node:fs";

/** The package root, as a `file:` URL ending in `/`. */
export const PACKAGE_ROOT: URL = findPackageRoot(new URL(".", import.meta.url));

/** Whether this code runs from the TypeScript sources rather than from `dist/`. */
export const FROM_SOURCE: boolean = import.meta.url.endsWith(".ts");

/** The export condition that selects the sources in `package.json` `exports`. */
export const SOURCE_CONDITION = "agent-serve-source";

/** `relative` (e.g. `"playground/"`) inside the package root. */
export function packageFile(relative: string): URL {
  return new URL(relative, PACKAGE_ROOT);
}

// --- internals ---

function findPackageRoot(start: URL): URL {
  for (let dir = start; ; dir = new URL("..", dir)) {
    const manifest = new URL("package.json", dir);
    if (existsSync(manifest) && isThisPackage(manifest)) return dir;
    if (dir.pathname === "/") throw new Error(`[agent-serve] [loader] no agent-serve package.json above ${start.href}`);
  }
}

function isThisPackage(manifest: URL): boolean {
  try {
    const json = JSON.parse(readFileSync(manifest, "utf8")) as { name?: unknown }; // SAFETY: checked below
    return json.name === "agent-serve";
  } catch {
    return false;
  }
}
