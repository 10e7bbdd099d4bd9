/**
 * Model ids: `<provider>/<id>`, bare ids whose provider is unambiguous (`gpt-5` is
 * `openai/gpt-5`), and everything else, which is not an error but a warning: the host then
 * serves the scripted model and says so (docs/design/agent-sdk-compatibility.md).
 * @module
 */
import type { AiSdkProvider } from "./ai-sdk.ts";

export const PROVIDERS: readonly AiSdkProvider[] = ["openai", "anthropic", "openai-compatible", "xai"];

/** Bare ids mapped to their provider, first match wins. */
const BARE_IDS: ReadonlyArray<[RegExp, AiSdkProvider]> = [
  [/^gpt-/i, "openai"],
  [/^o\d/i, "openai"],
  [/^claude-/i, "anthropic"],
  [/^grok-/i, "xai"],
];

/** Suffix-style ids that encode effort or speed (docs/guide/agent-projects.md "Agent configuration"): use params instead. */
const SUFFIX_STYLE = /[-:](minimal|low|medium|high|xhigh|fast)$/i;

/** Where a model id leads: a provider and the provider's own id. */
export interface ModelRoute {
  provider: AiSdkProvider;
  modelId: string;
  /** True when the id was bare and mapped by its prefix. */
  mapped: boolean;
}

/** The provider route of `id`, or `undefined` for `scripted` and ids no provider claims. */
export function routeModelId(id: string): ModelRoute | undefined {
  const slash = id.indexOf("/");
  if (slash !== -1) {
    const provider = id.slice(0, slash);
    return isProvider(provider) ? { provider, modelId: id.slice(slash + 1), mapped: false } : undefined;
  }
  const bare = BARE_IDS.find(([pattern]) => pattern.test(id));
  return bare ? { provider: bare[1], modelId: id, mapped: true } : undefined;
}

/**
 * Why a model id cannot work as written (an error diagnostic), or `undefined`. Ids no provider
 * claims are not errors here: see {@link modelIdWarning}.
 */
export function validateModelId(id: string): string | undefined {
  if (id === "scripted") return undefined;
  const route = routeModelId(id);
  if (!route) return undefined;
  if (!route.modelId.trim()) return `model "${id}" names no model: use "${route.provider}/<model>"`;
  // xAI names real models `grok-…-fast`; the suffix rule would reject them.
  const suffix = route.provider === "xai" ? null : SUFFIX_STYLE.exec(route.modelId);
  if (suffix) {
    const param = suffix[1]?.toLowerCase() === "fast" ? '{id: "fast", value: "true"}' : `{id: "effort", value: "${suffix[1]}"}`;
    const base = `${route.mapped ? "" : `${route.provider}/`}${route.modelId.slice(0, suffix.index)}`;
    return `model "${id}" encodes effort or speed in its id, which is not supported: use {id: "${base}", params: [${param}]}`;
  }
  return undefined;
}

/** The warning for an id no provider claims (the Agent SDK's own names, typos), or `undefined`. */
export function modelIdWarning(id: string): string | undefined {
  if (id === "scripted" || routeModelId(id)) return undefined;
  return (
    `model "${id}" is not one this host can call (use "scripted", "openai/<model>", "anthropic/<model>", "xai/<model>", ` +
    `"openai-compatible/<model>", or a bare gpt-*, o<n>*, claude-* or grok-* id): turns run on the offline scripted model`
  );
}

function isProvider(value: string): value is AiSdkProvider {
  return (PROVIDERS as readonly string[]).includes(value);
}
