/**
 * Load-time checks of the harness configuration (docs/guide/agent-projects.md "Agent
 * configuration"): the `tools` allowlist, the local options and the cloud-runtime rules. Pure, so
 * any loader can run them on a loaded project.
 * @module
 */
import type { Diagnostic, ProjectDefinition } from "../../base/definitions/project.ts";
import { HARNESS_TOOL_NAMES, resolveAllowlist } from "./allowlist.ts";
import { cloudBlockProblems } from "./cloud-block.ts";

export function validateHarnessConfig(project: ProjectDefinition, file: string): Diagnostic[] {
  const diagnostics: Diagnostic[] = [];
  const push = (severity: Diagnostic["severity"], code: string, message: string): void => {
    diagnostics.push({ severity, code, message, file });
  };
  const { agent } = project;
  const cloud = agent.runtime === "cloud";
  if (agent.runtime !== undefined && agent.runtime !== "local" && agent.runtime !== "cloud") {
    push("error", "invalid_agent_config", `runtime must be "local" or "cloud" (got ${JSON.stringify(agent.runtime)})`);
  }

  if (agent.cloud !== undefined) for (const problem of cloudBlockProblems(agent.cloud)) push("error", "invalid_agent_config", problem);

  const tools: unknown = agent.tools;
  const allowlistValid = tools === undefined || (Array.isArray(tools) && tools.every((name) => typeof name === "string"));
  if (!allowlistValid) push("error", "invalid_agent_config", "tools must be a list of harness tool names");
  if (cloud && tools !== undefined) {
    push("error", "cloud_tools_allowlist", "tools (the harness allowlist) works only with the local runtime; remove it or drop runtime: \"cloud\"");
  } else if (allowlistValid && Array.isArray(tools)) {
    const { unknown, allowed } = resolveAllowlist(tools);
    if (unknown.length > 0) {
      push("warning", "unknown_harness_tools", `tools lists unknown harness tool${unknown.length === 1 ? "" : "s"} ${unknown.map((n) => JSON.stringify(n)).join(", ")} (known: ${HARNESS_TOOL_NAMES.join(", ")}); every turn fails with a ConfigurationError until it is fixed`);
    }
    const agentTools = agentToolNames(project);
    if (!allowed.has("shell") && agentTools.length > 0) {
      push("warning", "agent_tools_blocked", `tools leaves out shell, which agent-execution tools need to run: ${agentTools.join(", ")} will not be offered to the model`);
    }
  }

  const local = agent.local;
  if (local !== undefined) {
    if (typeof local !== "object" || local === null || Array.isArray(local)) push("error", "invalid_agent_config", "local must be an object {cwd?, workspaceDir?, sandbox?}");
    else {
      for (const key of ["cwd", "workspaceDir"] as const) {
        if (local[key] !== undefined && (typeof local[key] !== "string" || local[key] === "")) push("error", "invalid_agent_config", `local.${key} must be a non-empty path`);
      }
      if (local.sandbox !== undefined && typeof local.sandbox !== "boolean") push("error", "invalid_agent_config", "local.sandbox must be a boolean");
    }
  }

  if (cloud) {
    // The runner loads its own copy of the project (docs/design/cloud-runtime.md "Where the
    // project comes from"): these reach the turn only if that copy matches the host's.
    const agentTools = agentToolNames(project);
    if (agentTools.length > 0) push("warning", "cloud_agent_tools", `agent-execution tools (${agentTools.join(", ")}) run on the cloud runner, from the runner's copy of the project: deploy the same project there`);
    if (Object.keys(project.skills ?? {}).length > 0) push("warning", "cloud_skills", 'skills reach cloud turns from the runner\'s copy of the project: deploy the same project there');
    if (project.workspaceSeed && project.workspaceSeed.files > 0) push("warning", "cloud_sandbox_seeds", "sandbox/workspace seed files reach cloud workspaces from the runner's copy of the project: deploy the same project there");
    if (agent.cloud === undefined) push("warning", "cloud_block_missing", 'runtime: "cloud" without a cloud block (repos, env, envVars): the runner starts every session from an empty workspace');
  }

  for (const [id, subagent] of Object.entries(project.subagents ?? {})) {
    if (subagent.tools === undefined) continue;
    const { unknown } = resolveAllowlist(subagent.tools);
    if (unknown.length > 0) {
      diagnostics.push({
        severity: "warning",
        code: "unknown_harness_tools",
        message: `subagent ${id}: tools lists unknown harness tool${unknown.length === 1 ? "" : "s"} ${unknown.map((n) => JSON.stringify(n)).join(", ")}; task calls to it fail with a ConfigurationError`,
        file: file.replace(/agent\.[mc]?[jt]s$/, `subagents/${id}/`),
      });
    }
  }
  return diagnostics;
}

function agentToolNames(project: ProjectDefinition): string[] {
  return Object.entries(project.tools ?? {})
    .filter(([, def]) => def.execution === "agent")
    .map(([name]) => name)
    .sort();
}
