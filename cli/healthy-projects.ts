/**
 * Which discovered projects a server mounts: in a folder of several agents, one broken agent is
 * reported and left out while the healthy ones serve, unless `--strict` (then any error refuses
 * the start, as a deploy wants). Problems of the folder itself, or no healthy agent at all, always
 * refuse (see `docs/guide/cli.md`).
 * @module
 */
import type { DiscoveredProject, Discovery } from "../loader/discover.ts";

export interface ProjectSelection {
  /** The projects to mount; empty when the start is refused. */
  serve: DiscoveredProject[];
  /** Projects left out for their errors, with the error count. */
  skipped: Array<{ slug: string; errors: number }>;
  /** Why nothing starts, when nothing does. */
  refused?: string;
}

export function selectHealthyProjects(discovery: Discovery, options: { strict?: boolean } = {}): ProjectSelection {
  const errorsOf = (project: DiscoveredProject): number => project.project.diagnostics.filter((d) => d.severity === "error").length;
  const folderErrors = discovery.diagnostics.filter((d) => d.severity === "error").length;
  const projectErrors = discovery.projects.reduce((sum, project) => sum + errorsOf(project), 0);
  const total = folderErrors + projectErrors;
  const refuse = (): ProjectSelection => ({ serve: [], skipped: [], refused: `${total} error${total === 1 ? "" : "s"} in the project` });
  if (folderErrors > 0) return refuse();
  const serve = discovery.projects.filter((project) => errorsOf(project) === 0);
  const skipped = discovery.projects.filter((project) => errorsOf(project) > 0).map((project) => ({ slug: project.slug, errors: errorsOf(project) }));
  if (skipped.length > 0 && (options.strict === true || serve.length === 0)) return refuse();
  return { serve, skipped };
}
