/**
 * Loads a project captured at build time (`agent-serve build --target cloudflare`): the same
 * loader as for a folder on disk, over the embedded files and the bundled modules, so a worker
 * gets the same `ProjectDefinition` without a filesystem (docs/guide/cloudflare.md "Build").
 * Imports nothing runtime-specific.
 * @module
 */
import type { ProjectDefinition } from "../src/base/definitions/project.ts";
import { loadProjectFrom } from "./load-from-source.ts";
import { snapshotSource } from "./project-source.ts";
import type { ProjectSnapshot } from "./project-source.ts";

export type { ProjectSnapshot } from "./project-source.ts";

export function loadProjectSnapshot(snapshot: ProjectSnapshot): Promise<ProjectDefinition> {
  return loadProjectFrom(snapshotSource(snapshot));
}
