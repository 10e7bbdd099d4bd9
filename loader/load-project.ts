/**
 * Loads one agent project directory into a `ProjectDefinition` (docs/guide/agent-projects.md
 * "Layout"): the loader of `load-from-source.ts` over the folder on disk. Problems become
 * diagnostics, never exceptions, so `serve` and `validate` can print every one of them.
 * @module
 */
import type { ProjectDefinition } from "../src/base/definitions/project.ts";
import { definitionRootOf, loadProjectFrom } from "./load-from-source.ts";
import { nodeProjectSource } from "./node-project-source.ts";
import { probeSandbox } from "./workspace/sandbox.ts";

/** The definition root (`bot/` or `agent/`) of `dir`, or `undefined` when `dir` is not a project. */
export function findDefinitionRoot(dir: string): string | undefined {
  return definitionRootOf(nodeProjectSource(dir));
}

/** Loads `dir` (the folder holding `bot/` and usually `package.json`). */
export function loadProject(dir: string): Promise<ProjectDefinition> {
  return loadProjectFrom(nodeProjectSource(dir), { probeSandbox: () => probeSandbox() });
}
