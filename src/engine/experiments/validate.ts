/**
 * Load-time checks of `experiments` in agent config: everything that would otherwise fail at
 * assignment or at the first turn of an arm becomes a diagnostic, so `validate` and `serve` see it.
 * @module
 */
import { modelIdWarning, validateModelId } from "../model/model-ids.ts";
import type { Diagnostic } from "../../base/definitions/project.ts";

/** Diagnostics for `agent.experiments` as authored (any shape); `file` is the config file. */
export function validateExperiments(value: unknown, file: string): Diagnostic[] {
  const diagnostics: Diagnostic[] = [];
  const error = (message: string, code = "invalid_experiment"): void => {
    diagnostics.push({ severity: "error", code, message, file });
  };
  if (value === undefined) return diagnostics;
  if (!Array.isArray(value)) {
    error("experiments must be a list of {id, arms}");
    return diagnostics;
  }
  const experimentIds = new Set<string>();
  value.forEach((experiment: unknown, i) => {
    if (!isRecord(experiment)) return error(`experiments[${i}] must be an object {id, arms}`);
    const id = experiment.id;
    if (!isId(id)) return error(`experiments[${i}].id must be a non-empty string`);
    const where = `experiment "${id}"`;
    if (experimentIds.has(id)) error(`${where} is declared twice: experiment ids must be unique`);
    experimentIds.add(id);
    const arms = experiment.arms;
    if (!Array.isArray(arms) || arms.length === 0) return error(`${where} needs a non-empty list of arms`);
    const armIds = new Set<string>();
    let drawable = false;
    arms.forEach((arm: unknown, j) => {
      if (!isRecord(arm)) return error(`${where}: arms[${j}] must be an object {id, weight, ...}`);
      if (!isId(arm.id)) return error(`${where}: arms[${j}].id must be a non-empty string`);
      const armWhere = `${where}, arm "${arm.id}"`;
      if (armIds.has(arm.id)) error(`${armWhere} is declared twice: arm ids must be unique within an experiment`);
      armIds.add(arm.id);
      const weight = arm.weight;
      if (typeof weight !== "number" || !Number.isFinite(weight) || weight < 0) {
        error(`${armWhere}: weight must be a finite number of at least 0 (got ${JSON.stringify(weight)})`);
      } else if (weight > 0) {
        drawable = true;
      }
      if (arm.instructions !== undefined && typeof arm.instructions !== "string") error(`${armWhere}: instructions must be a string`);
      if (arm.params !== undefined && !isParamList(arm.params)) error(`${armWhere}: params must be a list of {id, value}`);
      if (arm.model !== undefined) {
        const modelId = typeof arm.model === "string" ? arm.model : isRecord(arm.model) ? arm.model.id : undefined;
        if (typeof modelId !== "string" || !modelId.trim()) {
          error(`${armWhere}: model must be a model id string or {id, params}`);
        } else {
          const problem = validateModelId(modelId.trim());
          if (problem) error(`${armWhere}: ${problem}`, "invalid_model");
          const warning = modelIdWarning(modelId.trim());
          if (warning) diagnostics.push({ severity: "warning", code: "unknown_model", message: `${armWhere}: ${warning}`, file });
          if (isRecord(arm.model) && arm.model.params !== undefined && !isParamList(arm.model.params)) {
            error(`${armWhere}: model.params must be a list of {id, value}`);
          }
        }
      }
    });
    if (!drawable && armIds.size > 0) error(`${where}: at least one arm needs a positive weight`);
  });
  return diagnostics;
}

// --- internals ---

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isId(value: unknown): value is string {
  return typeof value === "string" && value.trim().length > 0;
}

function isParamList(value: unknown): boolean {
  return (
    Array.isArray(value) &&
    value.every((p: unknown) => isRecord(p) && isId(p.id) && ["string", "number", "boolean"].includes(typeof p.value))
  );
}
