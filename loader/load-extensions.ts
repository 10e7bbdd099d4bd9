/**
 * Loads `bot/extensions/<ns>.ts` and mounts each extension into the project: its contributions
 * are checked like the project's own definitions and named `<ns>__<name>`; a configurable
 * extension's config is validated first, so a bad config fails `validate`
 * (docs/design/agent-sdk-compatibility.md).
 * @module
 */
import type { ChannelDefinition } from "../src/base/definitions/channels.ts";
import { errorMessage } from "../src/base/errors.ts";
import { validateChannels } from "../src/features/channels/validate.ts";
import type { ExtensionContributions, ExtensionInfo, ExtensionMount } from "../src/base/definitions/extensions.ts";
import type { ConnectionDefinition, ProjectSkill, SubagentDefinition } from "../src/base/definitions/harness.ts";
import type { HookDefinition } from "../src/base/definitions/hooks.ts";
import type { ProjectDefinition } from "../src/base/definitions/project.ts";
import { unknownKeyDiagnostics } from "../src/engine/project/unknown-keys.ts";
import type { ScheduleDefinition } from "../src/base/definitions/schedules.ts";
import { validateSchedule } from "../src/features/schedules/validate.ts";
import { isStandardSchema } from "../src/engine/tools/schema.ts";
import type { ToolDefinition } from "../src/base/definitions/tools.ts";
import { validateHooks, validateTools } from "../src/engine/tools/validate-tools.ts";
import { checkConnection } from "./harness/load-connections.ts";
import type { ProjectSource } from "./project-source.ts";

const EXTENSION_KEYS = [
  "name", "description", "tools", "skills", "instructions", "connections", "hooks", "channels", "schedules", "subagents", "artifacts", "seeds", "hosting",
];
/** A namespace is a file name that keeps `<ns>__<name>` a valid tool name and unambiguous. */
const NAMESPACE = /^[A-Za-z0-9](?:[A-Za-z0-9-]|_(?!_))*$/;

/** Loads and mounts every extension of the project; diagnostics go to `project.diagnostics`. */
export async function loadExtensions(source: ProjectSource, rootName: string, project: ProjectDefinition): Promise<void> {
  const folder = `${rootName}/extensions`;
  if (!source.exists(folder)) return;
  const names = (await source.list(folder)).map((entry) => entry.name).filter((name) => /\.m?[jt]s$/.test(name) && !/\.d\.m?ts$/.test(name) && !name.startsWith("_")).sort();
  for (const fileName of names) {
    const ns = fileName.replace(/\.m?[jt]s$/, "");
    const file = `${folder}/${fileName}`;
    const diagnostics = project.diagnostics;
    const error = (code: string, message: string): void => void diagnostics.push({ severity: "error", code, message: `extension ${ns}: ${message}`, file });
    if (!NAMESPACE.test(ns) || ns.length > 32) {
      error("invalid_extension_namespace", "the file name is the namespace: 1 to 32 letters, digits, - or single _, starting with a letter or digit");
      continue;
    }
    let exported: unknown;
    try {
      exported = (await source.importModule(file)).default;
    } catch (err) {
      error("extension_import_failed", `cannot load ${file}: ${errorMessage(err)}`);
      continue;
    }
    const contributions = await resolveContributions(exported, error);
    if (!contributions) continue;
    mount(project, ns, contributions, file);
  }
}

// --- internals ---

async function resolveContributions(exported: unknown, error: (code: string, message: string) => void): Promise<ExtensionContributions | undefined> {
  if (isMount(exported)) {
    let config = exported.config;
    if (exported.configSchema !== undefined) {
      if (!isStandardSchema(exported.configSchema)) {
        error("invalid_extension", "configSchema must be a schema-validator object (valibot, zod, ...)");
        return undefined;
      }
      const checked = await exported.configSchema["~standard"].validate(config);
      if (checked.issues) {
        const issues = checked.issues.map((issue) => `${issue.path?.map((p) => String(typeof p === "object" ? p.key : p)).join(".") || "config"}: ${issue.message}`);
        error("invalid_extension_config", `invalid config: ${issues.join("; ")}`);
        return undefined;
      }
      config = checked.value;
    }
    try {
      return asContributions(exported.setup(config), error);
    } catch (err) {
      error("invalid_extension_config", `setup failed: ${errorMessage(err)}`);
      return undefined;
    }
  }
  return asContributions(exported, error);
}

function asContributions(value: unknown, error: (code: string, message: string) => void): ExtensionContributions | undefined {
  if (isRecord(value)) return value as ExtensionContributions; // SAFETY: an object; each member is checked in mount()
  error("invalid_extension", "the default export must be defineExtension({...}) or what an extension factory returns");
  return undefined;
}

function mount(project: ProjectDefinition, ns: string, ext: ExtensionContributions, file: string): void {
  const diagnostics = project.diagnostics;
  const name = (local: string): string => `${ns}__${local}`;
  const error = (code: string, message: string): void => void diagnostics.push({ severity: "error", code, message: `extension ${ns}: ${message}`, file });
  // SAFETY: checked to be an object by asContributions.
  diagnostics.push(...unknownKeyDiagnostics(ext as Record<string, unknown>, EXTENSION_KEYS, `extension ${ns}`, file));
  const info: ExtensionInfo = {
    namespace: ns,
    name: typeof ext.name === "string" ? ext.name : null,
    description: typeof ext.description === "string" ? ext.description : null,
    tools: [], skills: [], connections: [], hooks: [], channels: [], schedules: [], subagents: [], artifactKinds: [], seeds: [],
    egressDomains: strings(ext.hosting?.egressDomains),
    secretNames: strings(ext.hosting?.secretNames),
  };
  const records = <T>(key: keyof ExtensionContributions): Array<[string, T]> => {
    const value: unknown = ext[key];
    if (value === undefined) return [];
    if (!isRecord(value)) {
      error("invalid_extension", `${key} must be an object keyed by name`);
      return [];
    }
    return Object.entries(value) as Array<[string, T]>; // SAFETY: members are checked by each contribution's validator
  };
  const claim = (kind: string, existing: Record<string, unknown> | undefined, full: string): boolean => {
    if (existing && Object.hasOwn(existing, full)) {
      error("duplicate_extension_contribution", `${kind} ${full} already exists in the project`);
      return false;
    }
    return true;
  };

  const tools: Record<string, unknown> = {};
  for (const [local, def] of records<unknown>("tools")) tools[name(local)] = def;
  const toolProblems = validateTools(tools, { files: Object.fromEntries(Object.keys(tools).map((key) => [key, file])) });
  diagnostics.push(...toolProblems);
  for (const [full, def] of Object.entries(tools)) {
    if (toolProblems.some((d) => d.severity === "error" && d.message.startsWith(`tool ${full}:`))) continue;
    if (!claim("tool", project.tools, full)) continue;
    (project.tools ??= {})[full] = def as ToolDefinition; // SAFETY: validated above
    info.tools.push(full);
  }

  const hooks: Record<string, unknown> = {};
  for (const [local, def] of records<unknown>("hooks")) hooks[name(local)] = def;
  const hookProblems = validateHooks(hooks, { files: Object.fromEntries(Object.keys(hooks).map((key) => [key, file])) });
  diagnostics.push(...hookProblems);
  for (const [full, def] of Object.entries(hooks)) {
    if (hookProblems.some((d) => d.severity === "error" && d.message.startsWith(`hook ${full}:`))) continue;
    if (!claim("hook", project.hooks, full)) continue;
    (project.hooks ??= {})[full] = def as HookDefinition; // SAFETY: validated above
    info.hooks.push(full);
  }

  for (const [local, def] of records<unknown>("schedules")) {
    const full = name(local);
    const problems = validateSchedule(full, def, file);
    diagnostics.push(...problems);
    if (problems.some((d) => d.severity === "error") || !claim("schedule", project.schedules, full)) continue;
    (project.schedules ??= {})[full] = def as ScheduleDefinition; // SAFETY: validated above
    info.schedules.push(full);
  }

  for (const [local, def] of records<unknown>("connections")) {
    const full = name(local);
    const checked = checkConnection(def);
    if (typeof checked === "string") error("invalid_connection", `connection ${full} ${checked}`);
    else if (claim("connection", project.connections, full)) {
      (project.connections ??= {})[full] = checked as ConnectionDefinition;
      info.connections.push(full);
    }
  }

  for (const [local, def] of records<unknown>("skills")) {
    const full = name(local);
    const skill = toSkill(def, `${file}#skills.${local}`);
    if (typeof skill === "string") error("invalid_skill", `skill ${full}: ${skill}`);
    else if (claim("skill", project.skills, full)) {
      (project.skills ??= {})[full] = skill;
      info.skills.push(full);
    }
  }

  for (const [local, def] of records<unknown>("subagents")) {
    const full = name(local);
    if (!isRecord(def) || typeof def.description !== "string" || !def.description.trim() || typeof def.instructions !== "string") {
      error("invalid_subagent", `subagent ${full} needs a description and instructions (strings)`);
    } else if (claim("subagent", project.subagents, full)) {
      (project.subagents ??= {})[full] = def as unknown as SubagentDefinition; // SAFETY: the required members were checked above
      info.subagents.push(full);
    }
  }

  const kinds = ext.artifacts?.kinds;
  if (kinds !== undefined) {
    if (!isRecord(kinds)) error("invalid_artifacts", "artifacts.kinds must be an object keyed by kind");
    else {
      for (const [local, kind] of Object.entries(kinds)) {
        const full = name(local);
        if (!isRecord(kind) || typeof kind.description !== "string" || !kind.description.trim()) {
          error("invalid_artifacts", `artifact kind ${full} needs a description`);
          continue;
        }
        project.artifacts ??= {};
        if (!claim("artifact kind", project.artifacts.kinds, full)) continue;
        (project.artifacts.kinds ??= {})[full] = kind as { description: string };
        info.artifactKinds.push(full);
      }
    }
  }

  for (const [path, text] of records<unknown>("seeds")) {
    if (typeof text !== "string" || path.startsWith("/") || path.split("/").some((part) => part === "" || part === "." || part === "..")) {
      error("invalid_seed", `seed ${JSON.stringify(path)} must map a relative path to file contents (a string)`);
      continue;
    }
    (project.seedFiles ??= {})[`${ns}/${path}`] = text;
    info.seeds.push(`${ns}/${path}`);
  }

  const channels: Record<string, unknown> = {};
  for (const [local, def] of records<unknown>("channels")) channels[name(local)] = def;
  const channelProblems = validateChannels(channels, Object.fromEntries(Object.keys(channels).map((key) => [key, file])));
  diagnostics.push(...channelProblems);
  for (const [full, def] of Object.entries(channels)) {
    if (channelProblems.some((d) => d.severity === "error" && d.message.startsWith(`channel ${full}:`))) continue;
    if (!claim("channel", project.channels, full)) continue;
    // Mounted at /v1/channels/<ns>__<name> like the project's own channels.
    (project.channels ??= {})[full] = def as ChannelDefinition; // SAFETY: validated above
    info.channels.push(full);
  }

  if (ext.instructions !== undefined) {
    if (typeof ext.instructions !== "string") error("invalid_extension", "instructions must be a string");
    else if (ext.instructions.trim()) {
      project.instructions = [project.instructions, `## ${info.name ?? ns} (extension ${ns})\n\n${ext.instructions.trim()}`].filter(Boolean).join("\n\n");
    }
  }
  (project.extensions ??= {})[ns] = info;
}

function toSkill(value: unknown, source: string): ProjectSkill | string {
  if (typeof value === "string") {
    const description = value.trim().split("\n")[0]?.replace(/^#+\s*/, "").trim();
    return description ? { description, markdown: value, source } : "a Markdown skill needs a first line (its description)";
  }
  if (!isRecord(value) || typeof value.description !== "string" || !value.description.trim() || typeof value.markdown !== "string") {
    return "needs a description and markdown (strings), as defineSkill writes them";
  }
  const files = isRecord(value.files) ? (value.files as Record<string, string>) : undefined; // SAFETY: strings, as defineSkill types them
  return { description: value.description, markdown: value.markdown, ...(files ? { files } : {}), source };
}

function isMount(value: unknown): value is ExtensionMount {
  return isRecord(value) && value.kind === "agent-serve.extension" && typeof value.setup === "function";
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === "string") : [];
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
