/**
 * The package's two sites, read from its own files: the `/docs` site rendered from its Markdown
 * and the playground SPA. Each is imported on first use, so a command that serves neither loads
 * neither (the Markdown renderer is the larger). Not a public entry.
 * @module
 */
import type { RenderDocsOptions } from "../loader/docs-site.ts";
import type { ReadPlaygroundOptions } from "../loader/playground-site.ts";
import type { DocsSite, PlaygroundSite } from "../src/index.ts";

export type { RenderDocsOptions, ReadPlaygroundOptions };

/** The `/docs` pages, from the Markdown the package ships (docs/design/packaging.md). */
export async function renderDocsSite(options?: RenderDocsOptions): Promise<DocsSite> {
  return (await import("../loader/docs-site.ts")).renderDocsSite(options);
}

/** The playground's page and assets (docs/design/playground.md). */
export async function readPlaygroundSite(options?: ReadPlaygroundOptions): Promise<PlaygroundSite> {
  return (await import("../loader/playground-site.ts")).readPlaygroundSite(options);
}
