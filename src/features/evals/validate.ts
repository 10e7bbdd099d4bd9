/**
 * Checks of eval definitions and the eval config; problems become diagnostics (the loader's, or
 * warnings of the host for definitions passed in code).
 * @module
 */
import type { Diagnostic } from "../../base/definitions/project.ts";

/** Bounds of `maxConcurrency` (docs/guide/http-api.md "Limits"). */
export const MAX_CONCURRENCY = 200;
/** Longest time limit a case may ask for: one day. */
export const MAX_TIMEOUT_MS = 86_400_000;
/** Most iterations of one eval. */
export const MAX_ITERATIONS = 1000;

const SEGMENT = /^[A-Za-z0-9_.-]+$/;

/** Whether `id` is one path segment usable as a case id. */
export function isSegment(id: unknown): id is string {
  return typeof id === "string" && SEGMENT.test(id) && id !== "." && id !== ".." && id.length <= 200;
}

/** Problems of one eval definition named `id`, loaded from `file`. */
export function validateEval(definition: unknown, id: string, file?: string): Diagnostic[] {
  const found: Diagnostic[] = [];
  const problem = (message: string, code = "invalid_eval"): void => {
    found.push({ severity: "error", code, message: `eval ${id}: ${message}`, ...(file === undefined ? {} : { file }) });
  };
  if (!isObject(definition)) {
    problem("must be defineEval({...}) (an object), or an array of them");
    return found;
  }
  const hasTest = definition.test !== undefined;
  const hasCases = definition.cases !== undefined;
  if (hasTest === hasCases) problem(hasTest ? "has both test and cases; keep one of them" : "needs test or cases");
  if (hasTest && typeof definition.test !== "function") problem("test must be a function (t) => ...");
  if (hasCases) {
    if (!Array.isArray(definition.cases) || definition.cases.length === 0) {
      problem("cases must be a non-empty array of {id, test}");
    } else {
      const seen = new Set<string>();
      definition.cases.forEach((item: unknown, i: number) => {
        if (!isObject(item)) return problem(`cases[${i}] must be an object {id, test}`);
        if (!isSegment(item.id)) return problem(`cases[${i}].id must be one path segment (letters, digits, _ - .), got ${JSON.stringify(item.id)}`);
        if (seen.has(item.id)) problem(`case id ${item.id} is used twice`, "duplicate_eval");
        seen.add(item.id);
        if (typeof item.test !== "function") problem(`case ${item.id}: test must be a function (t) => ...`);
        if (item.description !== undefined && typeof item.description !== "string") problem(`case ${item.id}: description must be a string`);
        if (item.timeoutMs !== undefined && !isTimeout(item.timeoutMs)) problem(`case ${item.id}: timeoutMs must be an integer from 1 to ${MAX_TIMEOUT_MS}`);
      });
    }
  }
  if (definition.tags !== undefined && !(Array.isArray(definition.tags) && definition.tags.every((tag) => typeof tag === "string" && tag.length > 0))) {
    problem("tags must be an array of non-empty strings");
  }
  if (definition.description !== undefined && typeof definition.description !== "string") problem("description must be a string");
  if (definition.iterations !== undefined && !isInteger(definition.iterations, 1, MAX_ITERATIONS)) {
    problem(`iterations must be an integer from 1 to ${MAX_ITERATIONS}`);
  }
  if (definition.timeoutMs !== undefined && !isTimeout(definition.timeoutMs)) problem(`timeoutMs must be an integer from 1 to ${MAX_TIMEOUT_MS}`);
  return found;
}

/** Problems of `evals/evals.config.ts`. */
export function validateEvalConfig(config: unknown, file?: string): Diagnostic[] {
  const found: Diagnostic[] = [];
  const problem = (message: string): void => {
    found.push({ severity: "error", code: "invalid_eval_config", message, ...(file === undefined ? {} : { file }) });
  };
  if (!isObject(config)) {
    problem("the eval config must be defineEvalConfig({...}) (an object)");
    return found;
  }
  if (config.maxConcurrency !== undefined && !isInteger(config.maxConcurrency, 1, MAX_CONCURRENCY)) {
    problem(`maxConcurrency must be an integer from 1 to ${MAX_CONCURRENCY}, got ${JSON.stringify(config.maxConcurrency)}`);
  }
  if (config.timeoutMs !== undefined && !isTimeout(config.timeoutMs)) {
    problem(`timeoutMs must be an integer from 1 to ${MAX_TIMEOUT_MS}, got ${JSON.stringify(config.timeoutMs)}`);
  }
  return found;
}

// --- internals ---

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isInteger(value: unknown, min: number, max: number): boolean {
  return typeof value === "number" && Number.isInteger(value) && value >= min && value <= max;
}

function isTimeout(value: unknown): boolean {
  return isInteger(value, 1, MAX_TIMEOUT_MS);
}
