/**
 * Loads what the local harness needs from a project besides tools: skills, subagents, MCP
 * connections and the workspace seed folder, then checks the harness configuration (allowlist,
 * local options, cloud rules). Problems become diagnostics.
 * @module
 */
import type { ConnectionDefinition, ProjectSkill, SubagentDefinition, WorkspaceSeed } from "../../src/base/definitions/harness.ts";
import { validateHarnessConfig } from "../../src/engine/harness/validate.ts";
import type { Diagnostic, ProjectDefinition } from "../../src/base/definitions/project.ts";
import type { LoadOptions } from "../load-from-source.ts";
import type { ProjectSource } from "../project-source.ts";
import { loadConnections } from "./load-connections.ts";
import { loadSkills } from "./load-skills.ts";
import { loadSubagents } from "./load-subagents.ts";
import { errorMessage } from "../../src/base/errors.ts";

export interface HarnessDefinitions {
  skills?: Record<string, ProjectSkill>;
  subagents?: Record<string, SubagentDefinition>;
  connections?: Record<string, ConnectionDefinition>;
  workspaceSeed?: WorkspaceSeed;
}

export async function loadHarness(source: ProjectSource, rootName: string, diagnostics: Diagnostic[]): Promise<HarnessDefinitions> {
  const out: HarnessDefinitions = {};
  const guard = async <T>(what: string, load: () => Promise<T | undefined>): Promise<T | undefined> => {
    try {
      return await load();
    } catch (error) {
      diagnostics.push({ severity: "error", code: `${what}_unreadable`, message: `cannot read ${rootName}/${what}/: ${errorMessage(error)}` });
      return undefined;
    }
  };
  const skills = await guard("skills", () => loadSkills(source, rootName, diagnostics));
  if (skills) out.skills = skills;
  const subagents = await guard("subagents", () => loadSubagents(source, rootName, diagnostics));
  if (subagents) out.subagents = subagents;
  const connections = await guard("mcp-connections", () => loadConnections(source, rootName, diagnostics));
  if (connections) out.connections = connections;
  // Seed files are copied into local workspaces; a source without a filesystem has none to copy.
  const seedDir = `${rootName}/sandbox/workspace`;
  if (source.localFolder && source.isDirectory(seedDir)) {
    const { dir, files } = await source.localFolder(seedDir);
    out.workspaceSeed = { dir, files };
  }
  return out;
}

/** Load-time checks of the loaded project's harness configuration, sandbox availability included. */
export async function checkHarness(project: ProjectDefinition, agentFile: string, probeSandbox?: LoadOptions["probeSandbox"]): Promise<Diagnostic[]> {
  const diagnostics = validateHarnessConfig(project, agentFile);
  if (probeSandbox && project.agent.local?.sandbox === true && project.agent.runtime !== "cloud") {
    const probe = await probeSandbox();
    if (!probe.ok) {
      diagnostics.push({
        severity: "warning",
        code: "sandbox_unavailable",
        message: `local.sandbox is on, but no sandbox is available (${probe.reason}): shell commands and agent tools will fail until bubblewrap is installed`,
        file: agentFile,
      });
    }
  }
  return diagnostics;
}
