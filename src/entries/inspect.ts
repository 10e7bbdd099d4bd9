/**
 * `agent-serve/inspect`: what a host makes of an agent project, without serving it. The
 * project-info object `GET /v1/info` serves, the channels a project mounts, the model its turns
 * would run on, the harness tools it is allowed and the unsandboxed-shell warning `serve` prints.
 * The CLI's `info`, `validate` and `build` read a project through these (docs/guide/cli.md), and
 * so can any tool that checks a project before it is served.
 * @module
 */
import { projectInfo, type ProjectInfo } from "../features/discovery/project-info.ts";
import { agentRoutes } from "../http/routes/index.ts";
import type { ProjectDefinition } from "../base/definitions/project.ts";
import type { ModelSpec } from "../base/ports/model.ts";

export type { ProjectInfo, RouteInfo, ToolInfo, ExperimentInfo } from "../features/discovery/project-info.ts";
export { SCRIPTED_FALLBACK_CODE } from "../features/discovery/project-info.ts";
export { describeChannels } from "../features/channels/describe.ts";
export type { ChannelInfo, ChannelRouteInfo } from "../features/channels/describe.ts";
export { defaultModelId, effectiveModel, missingModelSetup, normalizeModelSpec, routeModelId } from "../engine/model/resolve.ts";
export type { ModelRoute } from "../engine/model/model-ids.ts";
export type { ModelSpec } from "../base/ports/model.ts";
export { hasUnsandboxedShell, UNSANDBOXED_SHELL_CODE, UNSANDBOXED_SHELL_MESSAGE } from "../engine/harness/shell-exposure.ts";
export { HARNESS_TOOL_NAMES, resolveAllowlist } from "../engine/harness/allowlist.ts";
export type { Allowlist, HarnessToolId } from "../engine/harness/allowlist.ts";
export type { Diagnostic, ProjectDefinition } from "../base/definitions/project.ts";

/** One mounted agent as {@link inspectProject} reads it. */
export interface InspectedAgent {
  slug: string;
  project: ProjectDefinition;
  /** `/<slug>` in multi mode, `""` in single mode. */
  basePath: string;
  /** The model its turns run on, with the notice when it falls back (see {@link effectiveModel}). */
  model: { spec: ModelSpec; notice?: string };
}

/**
 * The project-info object of one agent, as `GET /v1/info` answers it for a served host: its
 * routes are the host's agent routes. The harness is described as `serve` runs it.
 */
export function inspectProject(agent: InspectedAgent): ProjectInfo {
  return projectInfo(agent, agentRoutes);
}
