/**
 * Loads `bot/subagents/<id>/`: `agent.ts` (`defineAgent({description, model?, instructions?,
 * tools?})`, required) plus an optional `instructions.md`. A subagent inherits the parent's tools
 * and workspace; capability folders of its own are ignored with a warning.
 * @module
 */
import type { SubagentDefinition } from "../../src/base/definitions/harness.ts";
import { validateModelId } from "../../src/engine/model/resolve.ts";
import type { AgentConfig, Diagnostic } from "../../src/base/definitions/project.ts";
import { unknownKeyDiagnostics } from "../../src/engine/project/unknown-keys.ts";
import type { ProjectSource } from "../project-source.ts";
import { errorMessage } from "../../src/base/errors.ts";

const SUBAGENT_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;
const AGENT_FILES = ["agent.ts", "agent.mts", "agent.js", "agent.mjs"];
const CAPABILITY_DIRS = ["tools", "skills", "subagents", "channels", "schedules", "hooks", "mcp-connections", "sandbox"];

export async function loadSubagents(source: ProjectSource, rootName: string, diagnostics: Diagnostic[]): Promise<Record<string, SubagentDefinition> | undefined> {
  const folder = `${rootName}/subagents`;
  if (!source.exists(folder)) return undefined;
  const subagents: Record<string, SubagentDefinition> = {};
  const entries = (await source.list(folder)).filter((e) => e.kind === "directory" && !e.name.startsWith(".") && !e.name.startsWith("_"));
  for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const id = entry.name;
    const base = `${folder}/${id}`;
    const push = (severity: Diagnostic["severity"], code: string, message: string, file = `${base}/`): void => {
      diagnostics.push({ severity, code, message, file });
    };
    if (!SUBAGENT_ID.test(id)) {
      push("error", "invalid_subagent_id", `subagent id ${JSON.stringify(id)} must be letters, digits, "_" or "-" (at most 64)`);
      continue;
    }
    const agentFile = AGENT_FILES.find((name) => source.exists(`${base}/${name}`));
    if (agentFile === undefined) {
      push("error", "missing_subagent_agent", `subagent ${id} has no agent.ts: export default defineAgent({ description })`);
      continue;
    }
    const file = `${base}/${agentFile}`;
    let config: unknown;
    try {
      config = (await source.importModule(file)).default;
    } catch (error) {
      push("error", "subagent_import_failed", `cannot load ${file}: ${errorMessage(error)}`, file);
      continue;
    }
    if (typeof config !== "object" || config === null || Array.isArray(config)) {
      push("error", "invalid_subagent", `${file} must export default defineAgent({ description, model? })`, file);
      continue;
    }
    const agent = config as AgentConfig; // SAFETY: a non-null object; members checked below
    if (typeof agent.description !== "string" || agent.description.trim() === "") {
      push("error", "missing_subagent_description", `subagent ${id} needs a description: the parent reads it to decide when to delegate`, file);
      continue;
    }
    // SAFETY: the config as authored; only its own keys are read.
    diagnostics.push(...unknownKeyDiagnostics(agent as Record<string, unknown>, ["description", "model", "instructions", "tools", "name"], `subagent ${id}`, file));
    const modelId = typeof agent.model === "string" ? agent.model : agent.model?.id;
    if (agent.model !== undefined) {
      const problem = typeof modelId === "string" && modelId.trim() ? validateModelId(modelId.trim()) : "model must be a model id string or {id, params}";
      if (problem) {
        push("error", "invalid_model", `subagent ${id}: ${problem}`, file);
        continue;
      }
    }
    if (agent.tools !== undefined && !(Array.isArray(agent.tools) && agent.tools.every((name) => typeof name === "string"))) {
      push("error", "invalid_subagent", `subagent ${id}: tools must be a list of harness tool names`, file);
      continue;
    }
    for (const capability of CAPABILITY_DIRS) {
      if (source.exists(`${base}/${capability}`)) {
        push("warning", "subagent_capability_ignored", `subagent ${id}: ${capability}/ is ignored; subagents use the parent's ${capability}`, `${base}/${capability}/`);
      }
    }
    const fileText = await source.readText(`${base}/instructions.md`).catch(() => "");
    const inline = typeof agent.instructions === "string" ? agent.instructions.trim() : "";
    subagents[id] = {
      description: agent.description.trim(),
      instructions: [fileText.trim(), inline].filter(Boolean).join("\n\n"),
      ...(agent.model === undefined ? {} : { model: agent.model }),
      ...(agent.tools === undefined ? {} : { tools: agent.tools }),
    };
  }
  return subagents;
}
