/**
 * Finds the agent projects a served directory holds (docs/guide/http-api.md "Route layout"): the
 * directory itself when it is a project, else each child directory that is one, mounted under its
 * name.
 * @module
 */
import { existsSync } from "node:fs";
import { readdir } from "node:fs/promises";
import { basename, join, resolve } from "node:path";
import type { Diagnostic, ProjectDefinition } from "../src/base/definitions/project.ts";
import { findDefinitionRoot, loadProject } from "./load-project.ts";
import { slugProblem } from "./slug.ts";

export interface DiscoverOptions {
  /** Route layout; single mode serves exactly one project, unslugged. @default "multi" */
  mode?: "multi" | "single";
  /** How each project folder is loaded. @default loadProject */
  load?: (dir: string) => Promise<ProjectDefinition>;
}

export interface DiscoveredProject {
  /** Mount slug: the project's directory name. */
  slug: string;
  /** Absolute project directory. */
  dir: string;
  project: ProjectDefinition;
}

export interface Discovery {
  projects: DiscoveredProject[];
  /** Problems with the served directory as a whole (no project, too many for single mode). */
  diagnostics: Diagnostic[];
}

/** Discovers and loads every project under `dir`. Slug problems land on the project's diagnostics. */
export async function discoverProjects(dir: string, options: DiscoverOptions = {}): Promise<Discovery> {
  const mode = options.mode ?? "multi";
  const root = resolve(dir);
  const dirs = findDefinitionRoot(root) === undefined ? await childProjects(root) : [root];
  const diagnostics: Diagnostic[] = [];
  if (dirs.length === 0) {
    const message = existsSync(root)
      ? `no agent project found in ${root}: expected a bot/ directory there or in its child directories`
      : `${root} does not exist`;
    diagnostics.push({ severity: "error", code: "no_project", message });
  }
  if (mode === "single" && dirs.length > 1) {
    diagnostics.push({
      severity: "error",
      code: "single_mode_multiple_projects",
      message: `--mode single serves one project, but ${root} holds ${dirs.length} (${dirs.map((d) => basename(d)).join(", ")}); serve one of them or use --mode multi`,
    });
  }
  const projects: DiscoveredProject[] = [];
  for (const projectDir of dirs) {
    const slug = basename(projectDir);
    const project = await (options.load ?? loadProject)(projectDir);
    const problem = mode === "multi" ? slugProblem(slug) : undefined;
    if (problem) project.diagnostics.push({ severity: "error", code: "invalid_slug", message: problem });
    projects.push({ slug, dir: projectDir, project });
  }
  return { projects, diagnostics };
}

// --- internals ---

async function childProjects(root: string): Promise<string[]> {
  let entries;
  try {
    entries = await readdir(root, { withFileTypes: true });
  } catch {
    return [];
  }
  return entries
    .filter((entry) => entry.isDirectory() && !entry.name.startsWith(".") && entry.name !== "node_modules")
    .map((entry) => join(root, entry.name))
    .filter((child) => findDefinitionRoot(child) !== undefined)
    .sort();
}
