/**
 * Model ids, credentials and the default model: turns an agent's `model` field into a model.
 * @module
 */
import { createError } from "../../base/errors.ts";
import type { AgentConfig } from "../../base/definitions/project.ts";
import type { ModelCredentials, ModelOptions } from "../../base/ports/model.ts";
import { createAiSdkModel } from "./ai-sdk.ts";
import type { AiSdkProvider } from "./ai-sdk.ts";
import { routeModelId, validateModelId } from "./model-ids.ts";
import { createScriptedModel } from "./scripted.ts";
import type { ModelResolver, ModelSpec } from "../../base/ports/model.ts";

/** Where each provider's credential comes from, for messages that tell the user what to set. */
export const CREDENTIAL_ENV: Record<AiSdkProvider, string> = {
  openai: "OPENAI_API_KEY",
  anthropic: "ANTHROPIC_API_KEY",
  "openai-compatible": "AGENT_SERVE_OPENAI_COMPATIBLE_API_KEY",
  xai: "XAI_API_KEY",
};

export { modelIdWarning, routeModelId, validateModelId } from "./model-ids.ts";

/** Normalizes `model` of an agent config: a string or `{id, params: [{id, value}]}`. */
export function normalizeModelSpec(model: AgentConfig["model"]): ModelSpec | undefined {
  if (model === undefined) return undefined;
  if (typeof model === "string") return { id: model.trim(), params: {} };
  const params: Record<string, string> = {};
  for (const param of model.params ?? []) params[param.id] = String(param.value);
  return { id: model.id.trim(), params };
}

/**
 * Why turns on `spec` would fail for lack of a credential or base URL, or `undefined`. Only ids
 * written with their provider prefix fail that way; bare and unknown ids fall back to the
 * scripted model instead (see {@link effectiveModel}).
 */
export function missingModelSetup(spec: ModelSpec, options: Pick<ModelOptions, "credentials" | "openaiCompatibleBaseURL"> = {}): string | undefined {
  const route = routeModelId(spec.id);
  if (!route || route.mapped || validateModelId(spec.id)) return undefined;
  if (route.provider === "openai-compatible") {
    return options.openaiCompatibleBaseURL
      ? undefined
      : `model ${spec.id} needs the server's base URL: set AGENT_SERVE_OPENAI_BASE_URL (e.g. http://127.0.0.1:11434/v1)`;
  }
  if (options.credentials?.[route.provider]) return undefined;
  return `model ${spec.id} needs the ${route.provider} credential: pass --api-key, set ${CREDENTIAL_ENV[route.provider]} or run \`agent-serve login\``;
}

/**
 * The model an agent's turns really run on, with a notice when it is not the configured one: an
 * id no provider claims, or a bare id without its provider's credential, runs on the offline
 * scripted model (the Agent SDK's own ids load and answer offline).
 */
export function effectiveModel(spec: ModelSpec, options: Pick<ModelOptions, "credentials" | "openaiCompatibleBaseURL"> = {}): { spec: ModelSpec; notice?: string } {
  if (spec.id === "scripted") return { spec };
  const route = routeModelId(spec.id);
  const scripted = { id: "scripted", params: spec.params };
  if (!route) return { spec: scripted, notice: `model "${spec.id}" is not one this host can call: serving with the offline scripted model` };
  if (route.mapped && route.provider !== "openai-compatible" && !options.credentials?.[route.provider]) {
    return {
      spec: scripted,
      notice: `model "${spec.id}" needs the ${route.provider} credential (${CREDENTIAL_ENV[route.provider]}, --api-key or agent-serve login): serving with the offline scripted model`,
    };
  }
  return { spec: route.mapped ? { id: `${route.provider}/${route.modelId}`, params: spec.params } : spec };
}

/**
 * Creates the resolver the host uses for every turn: `scripted` is the built-in model, provider
 * ids go through the AI SDK with the provider's credential. `options.resolve` replaces it all.
 * @example
 * const resolve = createModelResolver({ credentials: { openai: key } });
 * const model = resolve({ id: "openai/gpt-5-mini", params: { effort: "low" } });
 */
export function createModelResolver(options: ModelOptions = {}): ModelResolver {
  if (options.resolve) return options.resolve;
  const scripted = createScriptedModel();
  return (spec) => {
    if (spec.id === "scripted") return scripted;
    const problem = validateModelId(spec.id);
    if (problem) throw createError("model", problem);
    const chosen = effectiveModel(spec, options).spec;
    const route = routeModelId(chosen.id);
    if (!route) return scripted;
    const { provider, modelId } = route;
    const apiKey = options.credentials?.[provider] || undefined;
    const missing = missingModelSetup(chosen, options);
    if (missing) throw createError("model", missing);
    const baseURL = provider === "openai-compatible" ? options.openaiCompatibleBaseURL : undefined;
    return createAiSdkModel({ provider, modelId, apiKey, baseURL, fetch: options.fetch, params: chosen.params });
  };
}

/**
 * The model used when the agent config names none: a provider model when a credential exists,
 * else the offline scripted model with a notice saying so.
 */
export function defaultModelId(credentials?: ModelCredentials): { id: string; notice?: string } {
  if (credentials?.openai) return { id: "openai/gpt-5-mini" };
  if (credentials?.anthropic) return { id: "anthropic/claude-sonnet-4-5" };
  if (credentials?.xai) return { id: "xai/grok-4.5" };
  return {
    id: "scripted",
    notice:
      "no model credential found (--api-key, OPENAI_API_KEY, ANTHROPIC_API_KEY or agent-serve login): serving with the offline scripted model",
  };
}

