/**
 * What of a project does not run on Workers (docs/guide/cloudflare.md "What the build warns about"):
 * there is no local harness there (no shell, file tools, workspaces, subprocesses), so agent-
 * execution tools, harness tools, skills and seeds delivered into workspaces, subagents' `task`
 * and stdio MCP connections are warned about at build time. Server tools, approvals, artifacts,
 * channels, HTTP MCP connections, schedules and evals run.
 * @module
 */
import { HARNESS_TOOL_NAMES, resolveAllowlist } from "../../src/entries/inspect.ts";
import type { Diagnostic, ProjectDefinition } from "../../src/index.ts";

export function workersDiagnostics(project: ProjectDefinition): Diagnostic[] {
  const diagnostics: Diagnostic[] = [];
  const warn = (code: string, message: string, file?: string): void => {
    diagnostics.push({ severity: "warning", code, message, ...(file ? { file } : {}) });
  };
  const agentTools = Object.entries(project.tools ?? {}).filter(([, tool]) => tool.execution === "agent").map(([name]) => name);
  if (agentTools.length > 0) warn("workers_agent_tools", `agent-execution tools (${agentTools.join(", ")}) run scripts in a local workspace, which Workers do not have: calls to them fail there`);
  const { allowed, configured } = resolveAllowlist(Array.isArray(project.agent.tools) ? project.agent.tools : undefined);
  const harness = HARNESS_TOOL_NAMES.filter((name) => allowed.has(name) && name !== "mcp");
  if (configured && harness.length > 0) {
    warn("workers_harness_tools", `tools lists local harness tools (${harness.join(", ")}); Workers have no local harness, so turns there do not get them`, "bot/agent.ts");
  }
  if (project.agent.local !== undefined) warn("workers_local_options", "local (cwd, workspaceDir, sandbox) configures the local harness, which Workers do not have", "bot/agent.ts");
  if (Object.keys(project.skills ?? {}).length > 0) warn("workers_skills", "skills are delivered into local workspaces; on Workers they are listed in /v1/info but no workspace receives them", "bot/skills/");
  if (Object.keys(project.subagents ?? {}).length > 0) warn("workers_subagents", "subagents run through the local harness's task tool, which Workers do not have", "bot/subagents/");
  if (project.workspaceSeed || Object.keys(project.seedFiles ?? {}).length > 0) warn("workers_seeds", "workspace seed files are copied into local workspaces only; a worker does not use them");
  for (const [name, connection] of Object.entries(project.connections ?? {})) {
    if ("command" in connection && connection.command !== undefined) {
      warn("workers_stdio_connection", `MCP connection ${name} starts a local process (command), which Workers cannot; use an HTTP url`, `bot/mcp-connections/${name}.ts`);
    }
  }
  return diagnostics;
}
