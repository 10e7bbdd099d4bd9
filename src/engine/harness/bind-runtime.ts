/**
 * Binds an agent's local options to its runtime port, so everything that asks for a session
 * workspace (turns, direct tool calls) gets the same directory and every script honours
 * `local.sandbox`.
 * @module
 */
import type { ProjectDefinition } from "../../base/definitions/project.ts";
import type { RuntimePort, WorkspacePlacement } from "../../base/ports/runtime.ts";

/**
 * The workspace placement of docs/guide/agent-projects.md "Agent configuration": a per-send
 * `workspaceDir` wins over
 * `local.workspaceDir` (one shared directory), which wins over `local.cwd` (`<cwd>/<sessionId>`).
 * Relative paths resolve against the project root.
 */
export function workspacePlacement(project: ProjectDefinition, perSend?: string): WorkspacePlacement | undefined {
  const local = project.agent.local;
  const base = project.root === undefined ? {} : { base: project.root };
  if (perSend) return { dir: perSend, ...base };
  if (local?.workspaceDir) return { dir: local.workspaceDir, ...base };
  if (local?.cwd) return { parent: local.cwd, ...base };
  return undefined;
}

/**
 * The runtime as this agent uses it. `perSendDir` reads the directory a send chose for the session
 * (kept on the session record), if any.
 */
export function bindRuntime(
  runtime: RuntimePort | undefined,
  project: ProjectDefinition,
  perSendDir: (sessionId: string) => Promise<string | undefined>,
): RuntimePort | undefined {
  if (!runtime) return undefined;
  const sandbox = project.agent.local?.sandbox === true;
  const bound: RuntimePort = {
    ...(runtime.stateRoot === undefined ? {} : { stateRoot: runtime.stateRoot }),
    async sessionWorkspace(sessionId, placement) {
      return runtime.sessionWorkspace(sessionId, placement ?? workspacePlacement(project, await perSendDir(sessionId)));
    },
    scratchWorkspace: () => runtime.scratchWorkspace(),
  };
  const { runScript, prepareWorkspace, harness, mcp, appendFile, removeSessionWorkspace, resolveHost } = runtime;
  if (appendFile) bound.appendFile = appendFile.bind(runtime);
  if (resolveHost) bound.resolveHost = resolveHost.bind(runtime);
  if (removeSessionWorkspace) {
    bound.removeSessionWorkspace = async (sessionId, placement) =>
      removeSessionWorkspace.call(runtime, sessionId, placement ?? workspacePlacement(project, await perSendDir(sessionId)));
  }
  if (runScript) bound.runScript = (script, options) => runScript.call(runtime, script, { ...options, sandbox: options.sandbox ?? sandbox });
  if (prepareWorkspace) bound.prepareWorkspace = prepareWorkspace.bind(runtime);
  if (harness) bound.harness = harness;
  if (mcp) bound.mcp = mcp;
  return bound;
}
