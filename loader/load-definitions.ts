/**
 * Loads the definition files of a project: `tools/<name>.ts`, `hooks/**\/<name>.ts` and
 * `artifacts.ts` below the definition root. Import failures and invalid definitions become
 * diagnostics with the file; only valid definitions reach the `ProjectDefinition`.
 * @module
 */
import { TAG_ARTIFACT_TOOL, validateArtifactsDefinition } from "../src/features/artifacts/tag-tool.ts";
import type { ArtifactsDefinition } from "../src/base/definitions/artifacts.ts";
import type { HookDefinition } from "../src/base/definitions/hooks.ts";
import type { Diagnostic } from "../src/base/definitions/project.ts";
import type { ToolDefinition } from "../src/base/definitions/tools.ts";
import { validateHooks, validateTools } from "../src/engine/tools/validate-tools.ts";
import { errorMessage } from "../src/base/errors.ts";
import { joinPath } from "./project-source.ts";
import type { ProjectSource } from "./project-source.ts";

const EXTENSIONS = [".ts", ".mts", ".js", ".mjs"];

export interface Definitions {
  tools?: Record<string, ToolDefinition>;
  hooks?: Record<string, HookDefinition>;
  artifacts?: ArtifactsDefinition;
}

/**
 * Loads the definitions under `<root>/<rootName>/`. Diagnostics are pushed onto `diagnostics`
 * with project-relative files.
 */
export async function loadDefinitions(source: ProjectSource, rootName: string, diagnostics: Diagnostic[]): Promise<Definitions> {
  const definitions: Definitions = {};
  const tools = await loadFolder(source, `${rootName}/tools`, false, "tool", diagnostics);
  if (tools) definitions.tools = keepValid(tools, validateTools(tools.defs, { files: tools.files }), diagnostics) as Record<string, ToolDefinition>;
  const hooks = await loadFolder(source, `${rootName}/hooks`, true, "hook", diagnostics);
  if (hooks) definitions.hooks = keepValid(hooks, validateHooks(hooks.defs, { files: hooks.files }), diagnostics) as Record<string, HookDefinition>;
  const artifacts = await loadArtifacts(source, rootName, diagnostics);
  if (artifacts) definitions.artifacts = artifacts;
  const shadowing = definitions.tools?.[TAG_ARTIFACT_TOOL];
  if (shadowing && artifacts?.agentTool === true) {
    diagnostics.push({
      severity: "warning",
      code: "tool_shadows_builtin",
      message: `tool ${TAG_ARTIFACT_TOOL} replaces the built-in ${TAG_ARTIFACT_TOOL} of artifacts agentTool; the authored tool wins`,
      file: tools?.files[TAG_ARTIFACT_TOOL],
    });
  }
  return definitions;
}

// --- internals ---

interface Loaded {
  /** Name to default export, as imported (not yet validated). */
  defs: Record<string, unknown>;
  /** Name to project-relative file. */
  files: Record<string, string>;
}

/** Imports every definition file of a folder; `undefined` when the folder does not exist. */
async function loadFolder(
  source: ProjectSource,
  folder: string,
  nested: boolean,
  what: "tool" | "hook",
  diagnostics: Diagnostic[],
): Promise<Loaded | undefined> {
  if (!source.exists(folder)) return undefined;
  const loaded: Loaded = { defs: Object.create(null) as Record<string, unknown>, files: Object.create(null) as Record<string, string> };
  let relatives: string[];
  try {
    relatives = await definitionFiles(source, folder, nested);
  } catch (error) {
    diagnostics.push({ severity: "error", code: `${what}s_unreadable`, message: `cannot read ${folder}/: ${errorMessage(error)}`, file: `${folder}/` });
    return loaded;
  }
  for (const relative of relatives) {
    const file = `${folder}/${relative}`;
    const name = stripExtension(relative);
    const previous = loaded.files[name];
    if (previous !== undefined) {
      diagnostics.push({ severity: "error", code: `duplicate_${what}`, message: `${what} ${name} is defined twice: ${previous} and ${file}`, file });
      continue;
    }
    loaded.files[name] = file;
    try {
      loaded.defs[name] = (await source.importModule(file)).default;
    } catch (error) {
      diagnostics.push({ severity: "error", code: `${what}_import_failed`, message: `cannot load ${file}: ${errorMessage(error)}`, file });
    }
  }
  return loaded;
}

/** The definitions without an error diagnostic; every diagnostic is passed on. */
function keepValid(loaded: Loaded, found: Diagnostic[], diagnostics: Diagnostic[]): Record<string, unknown> {
  diagnostics.push(...found);
  const broken = new Set(found.filter((d) => d.severity === "error").map((d) => d.file));
  const valid: Record<string, unknown> = {};
  for (const [name, def] of Object.entries(loaded.defs)) {
    if (!broken.has(loaded.files[name])) valid[name] = def;
  }
  return valid;
}

async function loadArtifacts(source: ProjectSource, rootName: string, diagnostics: Diagnostic[]): Promise<ArtifactsDefinition | undefined> {
  const fileName = EXTENSIONS.map((ext) => `artifacts${ext}`).find((name) => source.exists(`${rootName}/${name}`));
  if (fileName === undefined) return undefined;
  const file = `${rootName}/${fileName}`;
  let def: unknown;
  try {
    def = (await source.importModule(file)).default;
  } catch (error) {
    diagnostics.push({ severity: "error", code: "artifacts_import_failed", message: `cannot load ${file}: ${errorMessage(error)}`, file });
    return undefined;
  }
  if (typeof def !== "object" || def === null || Array.isArray(def)) {
    diagnostics.push({ severity: "error", code: "invalid_artifacts", message: `${file} must export default defineArtifacts({...}) (an object)`, file });
    return undefined;
  }
  const definition = def as ArtifactsDefinition; // SAFETY: an object; its fields are checked next
  const found = validateArtifactsDefinition(definition, file);
  diagnostics.push(...found);
  return found.some((d) => d.severity === "error") ? undefined : definition;
}

/**
 * Definition files below `dir` (relative, `/`-separated, sorted). Names starting with `_` or `.`,
 * declaration files and colocated tests are helpers, not definitions.
 */
async function definitionFiles(source: ProjectSource, dir: string, nested: boolean, prefix = ""): Promise<string[]> {
  const entries = await source.list(dir);
  const files: string[] = [];
  for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
    if (entry.name.startsWith("_") || entry.name.startsWith(".") || entry.name === "node_modules") continue;
    if (entry.kind === "directory") {
      if (nested) files.push(...(await definitionFiles(source, joinPath(dir, entry.name), true, `${prefix}${entry.name}/`)));
    } else if (isDefinitionFile(entry.name)) {
      files.push(`${prefix}${entry.name}`);
    }
  }
  return files;
}

function isDefinitionFile(name: string): boolean {
  if (!EXTENSIONS.some((ext) => name.endsWith(ext))) return false;
  return !/\.d\.m?ts$/.test(name) && !/\.(test|spec)\.m?[jt]s$/.test(name);
}

function stripExtension(file: string): string {
  return file.replace(/\.m?[jt]s$/, "");
}
