/**
 * Loads one agent project directory into a `ProjectDefinition` (docs/guide/agent-projects.md
 * "Layout"). Problems become diagnostics, never exceptions, so `serve` and `validate` can print
 * every one of them.
 * @module
 */
import { existsSync, statSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { basename, join, resolve } from "node:path";
import { channelPackDiagnostics } from "../src/channels/packs/diagnostics.ts";
import type { AgentConfig, Diagnostic, ProjectDefinition } from "../src/project/types.ts";
import { layoutDiagnostics } from "./check-layout.ts";
import { checkHarness, loadHarness } from "./harness/load-harness.ts";
import { importProjectModule } from "./import-module.ts";
import { loadChannels } from "./load-channels.ts";
import { loadDefinitions } from "./load-definitions.ts";
import { loadExtensions } from "./load-extensions.ts";
import { loadEvals } from "./load-evals.ts";
import { loadSchedules } from "./load-schedules.ts";
import { validateAgentConfig } from "./validate-config.ts";
import { errorMessage } from "../src/errors.ts";

/** `bot/` is the layout's root; `agent/` is the legacy name, still accepted. */
const ROOT_NAMES = ["bot", "agent"] as const;
const AGENT_FILES = ["agent.ts", "agent.mts", "agent.js", "agent.mjs"];

/** The definition root (`bot/` or `agent/`) of `dir`, or `undefined` when `dir` is not a project. */
export function findDefinitionRoot(dir: string): string | undefined {
  return ROOT_NAMES.find((name) => isDirectory(join(dir, name)));
}

/** Loads `dir` (the folder holding `bot/` and usually `package.json`). */
export async function loadProject(dir: string): Promise<ProjectDefinition> {
  const root = resolve(dir);
  const diagnostics: Diagnostic[] = [];
  const rootName = findDefinitionRoot(root);
  if (rootName === undefined) {
    diagnostics.push({
      severity: "error",
      code: "missing_agent_dir",
      message: `${root} is not an agent project: it has no bot/ directory`,
    });
  } else if (rootName === "agent") {
    diagnostics.push({
      severity: "info",
      code: "legacy_agent_dir",
      message: "the definition folder is named agent/; bot/ is the current name",
      file: "agent/",
    });
  }
  if (rootName !== undefined) diagnostics.push(...layoutDiagnostics(root, rootName));
  const pkg = await readPackageJson(root, diagnostics);
  const botDir = join(root, rootName ?? "bot");
  const agent = rootName === undefined ? {} : await loadAgentConfig(root, rootName, diagnostics);
  diagnostics.push(...validateAgentConfig(agent, `${rootName ?? "bot"}/agent.ts`));
  const instructions = await loadInstructions(botDir, rootName ?? "bot", agent, diagnostics);
  const definitions = rootName === undefined ? {} : await loadDefinitions(root, rootName, diagnostics);
  const schedules = rootName === undefined ? undefined : await loadSchedules(root, rootName, diagnostics);
  // evals/ sits at the project root, next to bot/.
  const evals = rootName === undefined ? {} : await loadEvals(root, diagnostics);
  const harness = rootName === undefined ? {} : await loadHarness(root, rootName, diagnostics);
  const channels = rootName === undefined ? undefined : await loadChannels(root, rootName, diagnostics);
  if (channels) diagnostics.push(...channelPackDiagnostics(channels, (id) => channelFile(root, `${rootName}/channels`, id)));
  const project: ProjectDefinition = {
    name: stringOr(agent.name) ?? pkg.name ?? basename(root),
    description: stringOr(agent.description) ?? pkg.description,
    root,
    agent,
    instructions,
    diagnostics,
    ...definitions,
    ...(schedules === undefined ? {} : { schedules }),
    ...evals,
    ...harness,
    ...(channels === undefined ? {} : { channels }),
  };
  if (rootName !== undefined) await loadExtensions(root, rootName, project);
  diagnostics.push(...(await checkHarness(project, `${rootName ?? "bot"}/agent.ts`)));
  return project;
}

// --- internals ---

/** The file `bot/channels/<id>.*` a channel was loaded from (the loader accepts these extensions). */
function channelFile(root: string, folder: string, id: string): string {
  const found = [".ts", ".mts", ".js", ".mjs"].map((ext) => `${folder}/${id}${ext}`).find((file) => existsSync(join(root, file)));
  return found ?? `${folder}/${id}.ts`;
}

interface PackageInfo {
  name?: string;
  description?: string;
}

async function readPackageJson(root: string, diagnostics: Diagnostic[]): Promise<PackageInfo> {
  let text: string;
  try {
    text = await readFile(join(root, "package.json"), "utf8");
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

async function loadAgentConfig(root: string, rootName: string, diagnostics: Diagnostic[]): Promise<AgentConfig> {
  const fileName = AGENT_FILES.find((name) => existsSync(join(root, rootName, name)));
  if (fileName === undefined) return {};
  const file = `${rootName}/${fileName}`;
  let exports: Record<string, unknown>;
  try {
    exports = await importProjectModule(join(root, file));
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
  botDir: string,
  rootName: string,
  agent: AgentConfig,
  diagnostics: Diagnostic[],
): Promise<string> {
  const file = `${rootName}/instructions.md`;
  let text = "";
  try {
    text = (await readFile(join(botDir, "instructions.md"), "utf8")).trim();
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

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

function stringOr(value: unknown): string | undefined {
  return typeof value === "string" && value.length > 0 ? value : undefined;
}
