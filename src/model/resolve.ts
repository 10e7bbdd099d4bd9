/**
 * Model ids, credentials and the default model: turns an agent's `model` field into a model.
 * @module
 */
import { createError } from "../errors.ts";
import type { AgentConfig } from "../project/types.ts";
import type { ModelCredentials, ModelOptions } from "../types.ts";
import { createAiSdkModel } from "./ai-sdk.ts";
import type { AiSdkProvider } from "./ai-sdk.ts";
import { createScriptedModel } from "./scripted.ts";
import type { ModelResolver, ModelSpec } from "./types.ts";

/** Where each provider's credential comes from, for messages that tell the user what to set. */
export const CREDENTIAL_ENV: Record<AiSdkProvider, string> = {
  openai: "OPENAI_API_KEY",
  anthropic: "ANTHROPIC_API_KEY",
  "openai-compatible": "AGENT_SERVE_OPENAI_COMPATIBLE_API_KEY",
};

const PROVIDERS: readonly AiSdkProvider[] = ["openai", "anthropic", "openai-compatible"];

/** Suffix-style ids that encode effort or speed (docs/guide/agent-projects.md "Agent configuration"): use params instead. */
const SUFFIX_STYLE = /[-:](minimal|low|medium|high|xhigh|fast)$/i;

/** Normalizes `model` of an agent config: a string or `{id, params: [{id, value}]}`. */
export function normalizeModelSpec(model: AgentConfig["model"]): ModelSpec | undefined {
  if (model === undefined) return undefined;
  if (typeof model === "string") return { id: model.trim(), params: {} };
  const params: Record<string, string> = {};
  for (const param of model.params ?? []) params[param.id] = String(param.value);
  return { id: model.id.trim(), params };
}

/** Returns why a model id is not supported, or `undefined` when it is. */
export function validateModelId(id: string): string | undefined {
  if (id === "scripted") return undefined;
  const slash = id.indexOf("/");
  const provider = slash === -1 ? id : id.slice(0, slash);
  const modelId = slash === -1 ? "" : id.slice(slash + 1);
  if (!isProvider(provider)) {
    return `unsupported model "${id}": use "scripted", "openai/<model>", "anthropic/<model>" or "openai-compatible/<model>"`;
  }
  if (!modelId.trim()) return `model "${id}" names no model: use "${provider}/<model>"`;
  const suffix = SUFFIX_STYLE.exec(modelId);
  if (suffix) {
    const param = suffix[1]?.toLowerCase() === "fast" ? '{id: "fast", value: "true"}' : `{id: "effort", value: "${suffix[1]}"}`;
    const base = `${provider}/${modelId.slice(0, suffix.index)}`;
    return `model "${id}" encodes effort or speed in its id, which is not supported: use {id: "${base}", params: [${param}]}`;
  }
  return undefined;
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
    const slash = spec.id.indexOf("/");
    // SAFETY: validateModelId accepted the prefix as one of the providers.
    const provider = spec.id.slice(0, slash) as AiSdkProvider;
    const modelId = spec.id.slice(slash + 1);
    const apiKey = options.credentials?.[provider] || undefined;
    if (provider === "openai-compatible") {
      if (!options.openaiCompatibleBaseURL) {
        throw createError(
          "model",
          `model ${spec.id} needs the server's base URL: set AGENT_SERVE_OPENAI_BASE_URL (e.g. http://127.0.0.1:11434/v1)`,
        );
      }
      return createAiSdkModel({ provider, modelId, apiKey, baseURL: options.openaiCompatibleBaseURL, fetch: options.fetch, params: spec.params });
    }
    if (!apiKey) {
      throw createError(
        "model",
        `model ${spec.id} needs a ${provider} credential: pass --api-key, set ${CREDENTIAL_ENV[provider]} or run \`agent-serve login\``,
      );
    }
    return createAiSdkModel({ provider, modelId, apiKey, fetch: options.fetch, params: spec.params });
  };
}

/**
 * The model used when the agent config names none: a provider model when a credential exists,
 * else the offline scripted model with a notice saying so.
 */
export function defaultModelId(credentials?: ModelCredentials): { id: string; notice?: string } {
  if (credentials?.openai) return { id: "openai/gpt-5-mini" };
  if (credentials?.anthropic) return { id: "anthropic/claude-sonnet-4-5" };
  return {
    id: "scripted",
    notice:
      "no model credential found (--api-key, OPENAI_API_KEY, ANTHROPIC_API_KEY or agent-serve login): serving with the offline scripted model",
  };
}

// --- internals ---

function isProvider(value: string): value is AiSdkProvider {
  return (PROVIDERS as readonly string[]).includes(value);
}
