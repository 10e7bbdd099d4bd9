import type { StandardSchema } from "../../base/validate.ts";
import type { InferOutput } from "../../engine/tools/define.ts";
import type { ExtensionContributions, ExtensionMount } from "../../base/definitions/extensions.ts";

/** The input type of a Standard Schema (what a caller passes before validation). */
type InferInput<Schema> = Schema extends { readonly "~standard": { readonly types?: { readonly input: infer Input } | undefined } } ? Input : unknown;

/**
 * Declares an extension. With contributions it is a typed identity function (a file exports
 * `defineExtension({ tools, ... })`); with `configSchema` and `setup` it returns a factory whose
 * result a project mounts as `export default ci({ org: "acme" })`: the host validates the config
 * at load (a bad config fails `validate`), then calls `setup` with the parsed config.
 * @example
 * export const ci = defineExtension({
 *   configSchema: v.object({ org: v.string() }),
 *   setup: ({ org }) => ({ tools: { status: { description: `CI status of ${org}`, execute: () => "green" } } }),
 * });
 */
export function defineExtension<Schema extends StandardSchema>(definition: {
  configSchema: Schema;
  setup(config: InferOutput<Schema>): ExtensionContributions;
}): (config: InferInput<Schema>) => ExtensionMount<InferOutput<Schema>>;
export function defineExtension<const T extends ExtensionContributions>(definition: T): T;
export function defineExtension(
  definition: ExtensionContributions | { configSchema: StandardSchema; setup(config: unknown): ExtensionContributions },
): ExtensionContributions | ((config: unknown) => ExtensionMount) {
  if ("setup" in definition && typeof definition.setup === "function") {
    const { configSchema, setup } = definition;
    return (config) => ({ kind: "agent-serve.extension", configSchema, config, setup });
  }
  return definition as ExtensionContributions;
}
