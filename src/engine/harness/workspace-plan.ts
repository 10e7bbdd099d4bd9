/**
 * What a session workspace holds before its first local turn (docs/design/local-runtime.md
 * "Preparation"): `AGENTS.md` from the instructions, each skill under `.cursor/skills/<name>/`,
 * each agent-execution tool as a script under `.agent-serve/tools/<name>` with a catalog in
 * `AGENTS.md`, and the seed folder. Computed once per agent from the loaded project; the runtime
 * writes it.
 * @module
 */
import type { ProjectDefinition } from "../../base/definitions/project.ts";
import type { WorkspacePlan } from "../../base/ports/runtime.ts";
import { toolInputJsonSchema } from "../tools/schema.ts";

/** Where agent-tool scripts live in a workspace. */
export const AGENT_TOOLS_DIR = ".agent-serve/tools";
/** Where skills live in a workspace. */
export const SKILLS_DIR = ".cursor/skills";

export interface PlannedWorkspace {
  plan: WorkspacePlan;
  /** Appended to the system prompt of turns that run in the workspace: the skills index. */
  systemNotes: string;
}

export function planWorkspace(project: ProjectDefinition): PlannedWorkspace {
  const files: Record<string, string> = {};
  const executables: string[] = [];
  const copies: WorkspacePlan["copies"] = [];

  // Extension seeds (`<ns>/<path>`); rewritten with the plan, so an extension's update reaches workspaces.
  for (const [path, text] of Object.entries(project.seedFiles ?? {})) files[path] = text;
  const skills = Object.entries(project.skills ?? {}).sort(([a], [b]) => (a < b ? -1 : 1));
  for (const [name, skill] of skills) {
    const folder = `${SKILLS_DIR}/${name}`;
    if (skill.dir !== undefined) {
      copies.push({ from: skill.dir, to: folder });
      continue;
    }
    files[`${folder}/SKILL.md`] = skillMarkdown(name, skill.description, skill.markdown ?? "");
    for (const [path, text] of Object.entries(skill.files ?? {})) files[`${folder}/${path}`] = text;
  }

  const agentTools = Object.entries(project.tools ?? {})
    .filter(([, def]) => def.execution === "agent" && typeof def.script === "string")
    .sort(([a], [b]) => (a < b ? -1 : 1));
  for (const [name, def] of agentTools) {
    const path = `${AGENT_TOOLS_DIR}/${name}`;
    files[path] = `#!/bin/sh\n# ${oneLine(def.description)}\n# Input: JSON on stdin. Output: the result on stdout.\n${def.script}\n`;
    executables.push(path);
  }

  const skillsIndex = skills.length === 0 ? "" : skillsSection(skills.map(([name, skill]) => ({ name, description: skill.description })));
  const toolsCatalog =
    agentTools.length === 0
      ? ""
      : [
          "## Agent tools",
          "",
          `Scripts in \`${AGENT_TOOLS_DIR}/\`. Run one with the shell, its JSON input on stdin: \`echo '{"key":"value"}' | ${AGENT_TOOLS_DIR}/<name>\`.`,
          "",
          ...agentTools.map(([name, def]) => `- \`${name}\`: ${oneLine(def.description)} Input schema: \`${JSON.stringify(toolInputJsonSchema(def))}\``),
        ].join("\n");
  const agentsMd = [`# ${project.name}`, project.instructions.trim(), skillsIndex, toolsCatalog].filter(Boolean).join("\n\n");

  const seedDir = project.workspaceSeed?.dir;
  const digests = skills.map(([name, skill]) => [name, skill.dir ?? null, skill.digest ?? null]);
  const fingerprint = hash(JSON.stringify([files, executables, copies, digests, agentsMd, seedDir ?? null]));
  return {
    plan: { fingerprint, files, executables, copies, agentsMd, ...(seedDir === undefined ? {} : { seedDir }) },
    systemNotes: skillsIndex,
  };
}

// --- internals ---

function skillsSection(skills: Array<{ name: string; description: string }>): string {
  return [
    "## Skills",
    "",
    `Skills are procedures loaded on demand. When a task matches a skill's description, read \`${SKILLS_DIR}/<name>/SKILL.md\` first and follow it.`,
    "",
    ...skills.map(({ name, description }) => `- \`${name}\`: ${oneLine(description)}`),
  ].join("\n");
}

function skillMarkdown(name: string, description: string, body: string): string {
  return `---\nname: ${name}\ndescription: ${JSON.stringify(oneLine(description))}\n---\n\n${body.trim()}\n`;
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

/** cyrb53: a fast 53-bit string hash; collisions only cost a needless re-preparation. */
function hash(text: string): string {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ ch, 2654435761);
    h2 = Math.imul(h2 ^ ch, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return (4294967296 * (2097151 & h2) + (h1 >>> 0)).toString(36);
}
