/**
 * Loads one agent project from a {@link ProjectSource} into a `ProjectDefinition`
 * (docs/guide/agent-projects.md "Layout"). Problems become diagnostics, never exceptions, so
 * `serve` and `validate` can print every one of them. Nothing here touches a filesystem: the same
 * code loads a folder on disk (`load-project.ts`) and a snapshot inside a worker
 * (`load-snapshot.ts`).
 * @module
 */
import { channelPackDiagnostics } from "../src/features/channels/packs/diagnostics.ts";
import type { AgentConfig, Diagnostic, ProjectDefinition } from "../src/base/definitions/project.ts";
import { layoutDiagnostics } from "./check-layout.ts";
import { checkHarness, loadHarness } from "./harness/load-harness.ts";
import { loadChannels } from "./load-channels.ts";
import { loadDefinitions } from "./load-definitions.ts";
import { loadExtensions } from "./load-extensions.ts";
import { loadEvals } from "./load-evals.ts";
import { loadSchedules } from "./load-schedules.ts";
import { validateAgentConfig } from "./validate-config.ts";
import { errorMessage } from "../src/base/errors.ts";
import type { ProjectSource } from "./project-source.ts";

/** `bot/` is the layout's root; `agent/` is the legacy name, still accepted. */
const ROOT_NAMES = ["bot", "agent"] as const;
const AGENT_FILES = ["agent.ts", "agent.mts", "agent.js", "agent.mjs"];

export interface LoadOptions {
  /** Whether a sandbox for `local.sandbox` is available; checked only where the local harness runs. */
  probeSandbox?: () => Promise<{ ok: true } | { ok: false; reason: string }>;
}

/** The definition root (`bot/` or `agent/`) of the source, or `undefined` when it is not a project. */
export function definitionRootOf(source: ProjectSource): string | undefined {
  return ROOT_NAMES.find((name) => source.isDirectory(name));
}

/** Loads the project (the folder holding `bot/` and usually `package.json`). */
export async function loadProjectFrom(source: ProjectSource, options: LoadOptions = {}): Promise<ProjectDefinition> {
  const root = source.root;
  const diagnostics: Diagnostic[] = [];
  const rootName = definitionRootOf(source);
  if (rootName === undefined) {
    diagnostics.push({
      severity: "error",
      code: "missing_agent_dir",
      message: `${root ?? source.dirName} is not an agent project: it has no bot/ directory`,
    });
  } else if (rootName === "agent") {
    diagnostics.push({
      severity: "info",
      code: "legacy_agent_dir",
      message: "the definition folder is named agent/; bot/ is the current name",
      file: "agent/",
    });
  }
  if (rootName !== undefined) diagnostics.push(...(await layoutDiagnostics(source, rootName)));
  const pkg = await readPackageJson(source, diagnostics);
  const agent = rootName === undefined ? {} : await loadAgentConfig(source, rootName, diagnostics);
  diagnostics.push(...validateAgentConfig(agent, `${rootName ?? "bot"}/agent.ts`));
  const instructions = await loadInstructions(source, rootName ?? "bot", agent, diagnostics);
  const definitions = rootName === undefined ? {} : await loadDefinitions(source, rootName, diagnostics);
  const schedules = rootName === undefined ? undefined : await loadSchedules(source, rootName, diagnostics);
  // evals/ sits at the project root, next to bot/.
  const evals = rootName === undefined ? {} : await loadEvals(source, diagnostics);
  const harness = rootName === undefined ? {} : await loadHarness(source, rootName, diagnostics);
  const channels = rootName === undefined ? undefined : await loadChannels(source, rootName, diagnostics);
  if (channels) diagnostics.push(...channelPackDiagnostics(channels, (id) => channelFile(source, `${rootName}/channels`, id)));
  const project: ProjectDefinition = {
    name: stringOr(agent.name) ?? pkg.name ?? source.dirName,
    description: stringOr(agent.description) ?? pkg.description,
    ...(root === undefined ? {} : { root }),
    agent,
    instructions,
    diagnostics,
    ...definitions,
    ...(schedules === undefined ? {} : { schedules }),
    ...evals,
    ...harness,
    ...(channels === undefined ? {} : { channels }),
  };
  if (rootName !== undefined) await loadExtensions(source, rootName, project);
  diagnostics.push(...(await checkHarness(project, `${rootName ?? "bot"}/agent.ts`, options.probeSandbox)));
  return project;
}

// --- internals ---

/** The file `bot/channels/<id>.*` a channel was loaded from (the loader accepts these extensions). */
function channelFile(source: ProjectSource, folder: string, id: string): string {
  const found = [".ts", ".mts", ".js", ".mjs"].map((ext) => `${folder}/${id}${ext}`).find((file) => source.exists(file));
  return found ?? `${folder}/${id}.ts`;
}

interface PackageInfo {
  name?: string;
  description?: string;
}

async function readPackageJson(source: ProjectSource, diagnostics: Diagnostic[]): Promise<PackageInfo> {
  let text: string;
  try {
    text = await source.readText("package.json");
  } catch {
    return {};
  }
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value !== "object" || value === null) return {};
    const record = value as Record<string, unknown>; // SAFETY: checked to be a non-null object above
    return { name: stringOr(record.name), description: stringOr(record.description) };
  } catch (error) {
    diagnostics.push({
      severity: "warning",
      code: "invalid_package_json",
      message: `package.json is not valid JSON: ${errorMessage(error)}`,
      file: "package.json",
    });
    return {};
  }
}

async function loadAgentConfig(source: ProjectSource, rootName: string, diagnostics: Diagnostic[]): Promise<AgentConfig> {
  const fileName = AGENT_FILES.find((name) => source.exists(`${rootName}/${name}`));
  if (fileName === undefined) return {};
  const file = `${rootName}/${fileName}`;
  let exports: Record<string, unknown>;
  try {
    exports = await source.importModule(file);
  } catch (error) {
    diagnostics.push({ severity: "error", code: "agent_import_failed", message: `cannot load ${file}: ${errorMessage(error)}`, file });
    return {};
  }
  const config = exports.default;
  if (typeof config !== "object" || config === null || Array.isArray(config)) {
    diagnostics.push({
      severity: "error",
      code: "invalid_agent_config",
      message: `${file} must export default defineAgent({...}) (an object)`,
      file,
    });
    return {};
  }
  return config as AgentConfig; // SAFETY: an object; its fields are checked by validateAgentConfig
}

async function loadInstructions(
  source: ProjectSource,
  rootName: string,
  agent: AgentConfig,
  diagnostics: Diagnostic[],
): Promise<string> {
  const file = `${rootName}/instructions.md`;
  let text = "";
  try {
    text = (await source.readText(file)).trim();
  } catch {
    diagnostics.push({
      severity: "error",
      code: "missing_instructions",
      message: `${file} is missing: it holds the agent's always-on system prompt`,
      file,
    });
  }
  const inline = typeof agent.instructions === "string" ? agent.instructions.trim() : "";
  return [text, inline].filter(Boolean).join("\n\n");
}

function stringOr(value: unknown): string | undefined {
  return typeof value === "string" && value.length > 0 ? value : undefined;
}
