import type { ArtifactsDefinition } from "../../base/definitions/artifacts.ts";

/**
 * Declares the agent's artifacts in `bot/artifacts.ts`: the kinds (each with a description that
 * doubles as the model-facing prompt, and an optional schema whose parsed output is stored), the
 * model-facing `tag_artifact` tool, and the retention cap. A typed identity function.
 * @example
 * import * as v from "valibot";
 * export default defineArtifacts({
 *   kinds: { report: { description: "A finished report", schema: v.object({ words: v.number() }) } },
 *   agentTool: true,
 *   max: 500,
 * });
 */
export function defineArtifacts<const T extends ArtifactsDefinition>(definition: T): T {
  return definition;
}
