/**
 * The installed package as the CLI sees it: where its own files are, whether it runs from its
 * TypeScript sources or from `dist/` (a Workers build bundles whichever it is), and the module
 * hooks' generation of project files that `dev` advances on each reload
 * (docs/design/dev-reload.md). The loader holds the implementation. Not a public entry.
 * @module
 */
export { FROM_SOURCE, SOURCE_CONDITION, packageFile } from "../loader/package-root.ts";
export { nextProjectGeneration } from "../loader/module-hooks.ts";
