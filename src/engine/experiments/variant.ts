/**
 * What a session's arms change about its turns: the model (resolved through the agent's own
 * resolver), the model params and the system prompt.
 * @module
 */
import { normalizeModelSpec } from "../model/resolve.ts";
import type { LanguageModelPort, ModelResolver, ModelSpec } from "../../base/ports/model.ts";
import type { ModelParam } from "../../base/definitions/project.ts";
import { armOf } from "./assign.ts";
import type { AbAssignment, ExperimentDefinition } from "../../base/definitions/experiments.ts";
import { errorMessage } from "../../base/errors.ts";

export interface TurnVariant {
  spec: ModelSpec;
  system: string;
}

/**
 * Applies the session's arms to the agent's defaults, in experiment declaration order (a later
 * experiment's arm wins where two set the same thing). An assignment whose experiment or arm was
 * removed from the config since changes nothing: the session falls back to the agent's defaults.
 */
export function turnVariant(
  base: TurnVariant,
  experiments: readonly ExperimentDefinition[],
  assignments: readonly AbAssignment[] | undefined,
): TurnVariant {
  if (!assignments?.length || experiments.length === 0) return base;
  let { spec, system } = base;
  for (const experiment of experiments) {
    const assignment = assignments.find((a) => a.experimentId === experiment.id);
    const arm = assignment && armOf(experiments, assignment);
    if (!arm) continue;
    if (arm.model !== undefined) spec = normalizeModelSpec(arm.model) ?? spec;
    if (arm.params?.length) spec = { id: spec.id, params: { ...spec.params, ...paramRecord(arm.params) } };
    if (arm.instructions !== undefined) system = arm.instructions;
  }
  return { spec, system };
}

/**
 * Resolves each distinct model spec once and reuses it. A spec that cannot be resolved (missing
 * credential) is remembered as its error, so every turn on it fails with the same clear message
 * instead of failing start-up.
 */
export function cachedModels(resolve: ModelResolver): (spec: ModelSpec) => LanguageModelPort | { error: string } {
  const cache = new Map<string, LanguageModelPort | { error: string }>();
  return (spec) => {
    const key = specKey(spec);
    let model = cache.get(key);
    if (!model) {
      try {
        model = resolve(spec);
      } catch (error) {
        model = { error: errorMessage(error) };
      }
      cache.set(key, model);
    }
    return model;
  };
}

/** `[{id, value}]` params as the `{id: value}` record a model spec carries. */
export function paramRecord(params: readonly ModelParam[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const param of params) out[param.id] = String(param.value);
  return out;
}

// --- internals ---

const specKey = (spec: ModelSpec): string =>
  JSON.stringify([spec.id, Object.entries(spec.params).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))]);
