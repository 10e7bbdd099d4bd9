/**
 * Which discovered projects a server mounts: in a folder of several agents, one broken agent is
 * reported and left out while the healthy ones serve, unless `--strict` (then any error refuses
 * the start, as a deploy wants). Problems of the folder itself, or no healthy agent at all, always
 * refuse (see `docs/guide/cli.md`). On a `dev` reload a broken agent keeps its last good version.
 * @module
 */
import type { DiscoveredProject, Discovery } from "../adapters/_discovery.ts";

export interface ProjectSelection {
  /** The projects to mount; empty when the start is refused. */
  serve: DiscoveredProject[];
  /** Broken projects served in their last good version instead (a `dev` reload). */
  kept: Array<{ slug: string; previous: DiscoveredProject }>;
  /** Projects left out for their errors, with the error count. */
  skipped: Array<{ slug: string; errors: number }>;
  /** Why nothing starts, when nothing does. */
  refused?: string;
}

export function selectHealthyProjects(
  discovery: Discovery,
  options: { strict?: boolean; lastGood?: readonly DiscoveredProject[] } = {},
): ProjectSelection {
  const errorsOf = (project: DiscoveredProject): number => project.project.diagnostics.filter((d) => d.severity === "error").length;
  const folderErrors = discovery.diagnostics.filter((d) => d.severity === "error").length;
  const projectErrors = discovery.projects.reduce((sum, project) => sum + errorsOf(project), 0);
  const total = folderErrors + projectErrors;
  const refuse = (): ProjectSelection => ({ serve: [], kept: [], skipped: [], refused: `${total} error${total === 1 ? "" : "s"} in the project` });
  if (folderErrors > 0) return refuse();
  const serve: DiscoveredProject[] = [];
  const kept: ProjectSelection["kept"] = [];
  const skipped: ProjectSelection["skipped"] = [];
  for (const project of discovery.projects) {
    const errors = errorsOf(project);
    const previous = errors > 0 ? options.lastGood?.find((good) => good.slug === project.slug) : undefined;
    if (errors === 0) serve.push(project);
    else if (previous) {
      serve.push(withStaleNotice(previous, project));
      kept.push({ slug: project.slug, previous });
    } else skipped.push({ slug: project.slug, errors });
  }
  const broken = skipped.length + kept.length;
  if (broken > 0 && options.strict === true) return refuse();
  if (skipped.length > 0 && serve.length === 0) return refuse();
  return { serve, kept, skipped };
}

// --- internals ---

/** The last good version, with a warning that says why it is still the one served. */
function withStaleNotice(previous: DiscoveredProject, broken: DiscoveredProject): DiscoveredProject {
  const first = broken.project.diagnostics.find((d) => d.severity === "error");
  const where = first?.file ? `${first.file}: ` : "";
  const notice = {
    severity: "warning" as const,
    code: "last_good_version",
    message: `serving the last good version: ${where}${first?.message ?? "the project has errors"}`,
    ...(first?.file ? { file: first.file } : {}),
  };
  const diagnostics = [...previous.project.diagnostics.filter((d) => d.code !== "last_good_version"), notice];
  return { ...previous, project: { ...previous.project, diagnostics } };
}
