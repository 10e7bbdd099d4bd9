/**
 * Agent projects on disk without a host, for the CLI: finding them under a directory (`info`,
 * `validate`, `build`), recording one as the snapshot a Workers build bundles, and the rules a
 * slug follows (`init`). The loader holds the implementation; `loadProject` (./_project.ts) is
 * the path that also binds a runtime's importer. Not a public entry.
 * @module
 */
export { discoverProjects } from "../loader/discover.ts";
export type { DiscoveredProject, Discovery } from "../loader/discover.ts";
export { recordProject } from "../loader/record-project.ts";
export type { RecordedProject } from "../loader/record-project.ts";
export { slugProblem } from "../loader/slug.ts";
