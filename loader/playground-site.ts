/**
 * Reads the playground SPA served at `<base>/playground`: `index.html` and the flat `assets/`
 * folder of the package's `playground/`, once, at start-up. The core only receives the files,
 * because it must not read any.
 * @example
 * createHost({ agents, playground: await readPlaygroundSite() });
 * @module
 */
import { readdir, readFile } from "node:fs/promises";
import { extname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { packageFile } from "./package-root.ts";
import type { PlaygroundAsset, PlaygroundSite } from "../src/http/site-types.ts";

export interface ReadPlaygroundOptions {
  /** The folder holding `index.html` and `assets/`. @default the package's own `playground/` */
  root?: string;
}

export async function readPlaygroundSite(options: ReadPlaygroundOptions = {}): Promise<PlaygroundSite> {
  const root = options.root ?? fileURLToPath(packageFile("playground/"));
  const assetsDir = join(root, "assets");
  const names = (await readdir(assetsDir)).filter((name) => TYPES[extname(name)] !== undefined).sort();
  const [index, ...bodies] = await Promise.all([
    readFile(join(root, "index.html"), "utf8"),
    ...names.map((name) => readFile(join(assetsDir, name), "utf8")),
  ]);
  const assets: Record<string, PlaygroundAsset> = {};
  names.forEach((name, i) => {
    assets[name] = { body: bodies[i]!, type: TYPES[extname(name)]! };
  });
  for (const [name, body] of await readVendored()) assets[name] = { body, type: TYPES[".js"]! };
  return { index: index!, assets };
}

// --- internals ---

/**
 * Libraries the page imports, served from this package's dependencies as ES modules under flat
 * asset names: marked renders replies as Markdown, DOMPurify sanitizes the result.
 */
const VENDORED: ReadonlyArray<readonly [string, string]> = [
  ["vendor-marked.js", "marked"],
  ["vendor-purify.js", "dompurify"],
];

async function readVendored(): Promise<Array<[string, string]>> {
  return Promise.all(
    VENDORED.map(async ([name, specifier]): Promise<[string, string]> => {
      const text = await readFile(fileURLToPath(import.meta.resolve(specifier)), "utf8");
      // The source maps are not served; without the comment no browser asks for them.
      return [name, text.replace(/\n\/\/# sourceMappingURL=\S+\s*$/, "\n")];
    }),
  );
}

/** Only these kinds are served; anything else in the folder (notes, editor files) stays private. */
const TYPES: Record<string, string> = {
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
};
