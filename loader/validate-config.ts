import { validateExperiments } from "../src/engine/experiments/validate.ts";
import { modelIdWarning, validateModelId } from "../src/engine/model/model-ids.ts";
import type { AgentConfig, Diagnostic } from "../src/base/definitions/project.ts";
import { unknownKeyDiagnostics } from "../src/engine/project/unknown-keys.ts";
import { errorMessage } from "../src/base/errors.ts";
import { resolveEndpoints } from "../src/features/webhooks/endpoints.ts";
import { resolveBudgets } from "../src/engine/budgets/config.ts";

/** The members of `defineAgent({...})` (docs/guide/agent-projects.md). */
export const AGENT_CONFIG_KEYS = [
  "model", "name", "description", "instructions", "runtime", "local", "cloud", "hosting", "concurrency",
  "builtinTools", "tools", "prices", "experiments", "kv", "a2a", "webhooks",
  "budgets",
];

/** Agent SDK keys this host reads nowhere, and why that is fine. */
const IGNORED_AGENT_KEYS: Record<string, string> = {
  persistent: "it chooses a runtime on the Agent SDK's managed hosting; sessions here are always durable",
};

/** Upper bound of `concurrency.maxRunningTurns` (docs/guide/http-api.md "Limits"). */
export const MAX_RUNNING_TURNS_LIMIT = 200;

/**
 * Checks the fields of `bot/agent.ts` that would otherwise fail late (at the first turn) or
 * silently. `file` is the project-relative config file the diagnostics point at.
 */
export function validateAgentConfig(agent: AgentConfig, file: string): Diagnostic[] {
  const diagnostics: Diagnostic[] = [];
  const error = (message: string): void => {
    diagnostics.push({ severity: "error", code: "invalid_agent_config", message, file });
  };
  for (const key of ["name", "description", "instructions"] as const) {
    if (agent[key] !== undefined && typeof agent[key] !== "string") error(`${key} must be a string`);
  }
  const max = agent.concurrency?.maxRunningTurns;
  if (max !== undefined && !(Number.isInteger(max) && max >= 1 && max <= MAX_RUNNING_TURNS_LIMIT)) {
    error(`concurrency.maxRunningTurns must be a positive integer of at most ${MAX_RUNNING_TURNS_LIMIT} (got ${JSON.stringify(max)})`);
  }
  const model = agent.model;
  if (model !== undefined) {
    const id = typeof model === "string" ? model : typeof model === "object" && model !== null ? model.id : undefined;
    if (typeof id !== "string" || id.trim().length === 0) {
      error("model must be a model id string or {id, params}");
    } else {
      const problem = validateModelId(id.trim());
      if (problem) diagnostics.push({ severity: "error", code: "invalid_model", message: problem, file });
      const warning = modelIdWarning(id.trim());
      if (warning) diagnostics.push({ severity: "warning", code: "unknown_model", message: warning, file });
    }
  }
  diagnostics.push(...validateExperiments(agent.experiments, file));
  const kv: unknown = agent.kv;
  if (kv !== undefined) {
    const driver = typeof kv === "object" && kv !== null ? (kv as { driver?: unknown }).driver : undefined;
    if (typeof driver !== "object" || driver === null || typeof (driver as { getItem?: unknown }).getItem !== "function") {
      error("kv must be {driver} with an unstorage driver (e.g. kv: { driver: redisDriver({ url }) })");
    }
  }
  // SAFETY: the config is a plain object as authored; its keys are what is checked here.
  diagnostics.push(...unknownKeyDiagnostics(agent as Record<string, unknown>, AGENT_CONFIG_KEYS, "agent config", file, IGNORED_AGENT_KEYS));
  for (const message of a2aConfigProblems(agent.a2a)) error(message);
  if (agent.webhooks !== undefined && !Array.isArray(agent.webhooks)) error("webhooks must be an array of {url, events, secret, id?, allowPrivateTarget?}");
  else if (agent.webhooks !== undefined) {
    // Private targets are judged where `--dev` is known: when the host is built.
    try {
      resolveEndpoints(agent.webhooks, true);
    } catch (problem) {
      error(errorMessage(problem).replace(/^\[agent-serve\] \[webhooks\] /, ""));
    }
  }
  try {
    resolveBudgets(agent.budgets);
  } catch (problem) {
    error(errorMessage(problem).replace(/^\[agent-serve\] \[budgets\] /, ""));
  }
  return diagnostics;
}

/** `a2a`: skill lists of `{id, name, description, tags?, examples?}` (docs/guide/a2a.md "The agent card"). */
function a2aConfigProblems(a2a: unknown): string[] {
  if (a2a === undefined) return [];
  if (typeof a2a !== "object" || a2a === null || Array.isArray(a2a)) return ["a2a must be an object: {skills?, extendedSkills?, allowPrivatePushTargets?}"];
  const problems: string[] = [];
  for (const [key, value] of Object.entries(a2a)) {
    if (key === "allowPrivatePushTargets") {
      if (typeof value !== "boolean") problems.push("a2a.allowPrivatePushTargets must be a boolean");
      continue;
    }
    if (key !== "skills" && key !== "extendedSkills") {
      problems.push(`a2a.${key} is not a key of a2a (skills, extendedSkills, allowPrivatePushTargets)`);
      continue;
    }
    if (!Array.isArray(value)) {
      problems.push(`a2a.${key} must be an array of {id, name, description, tags?, examples?}`);
      continue;
    }
    value.forEach((skill: unknown, index) => {
      const record = typeof skill === "object" && skill !== null ? (skill as Record<string, unknown>) : {};
      const strings = (name: string) => record[name] === undefined || (Array.isArray(record[name]) && (record[name] as unknown[]).every((item) => typeof item === "string"));
      if (!["id", "name", "description"].every((name) => typeof record[name] === "string" && record[name] !== "") || !strings("tags") || !strings("examples")) {
        problems.push(`a2a.${key}[${index}] must be {id, name, description} (non-empty strings) with optional string arrays tags and examples`);
      }
    });
  }
  return problems;
}
