/**
 * Loads `bot/skills/` in its three forms: `<name>.md` (optional `description` frontmatter, else
 * the first body line), `<name>/SKILL.md` with sibling files (`description` frontmatter required)
 * and `<name>.ts` (`export default defineSkill({description, markdown, files})`).
 * @module
 */
import type { ProjectSkill } from "../../src/base/definitions/harness.ts";
import { unknownKeyDiagnostics } from "../../src/engine/project/unknown-keys.ts";
import type { Diagnostic } from "../../src/base/definitions/project.ts";
import { joinPath } from "../project-source.ts";
import type { ProjectSource } from "../project-source.ts";
import { firstLine, parseFrontmatter } from "./frontmatter.ts";
import { errorMessage } from "../../src/base/errors.ts";

/** Skill names become folder names in the workspace. */
const SKILL_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
const MODULE = /\.(m?[jt]s)$/;

export async function loadSkills(source: ProjectSource, rootName: string, diagnostics: Diagnostic[]): Promise<Record<string, ProjectSkill> | undefined> {
  const folder = `${rootName}/skills`;
  if (!source.exists(folder)) return undefined;
  const skills: Record<string, ProjectSkill> = {};
  const sources: Record<string, string> = {};
  const entries = (await source.list(folder)).sort((a, b) => (a.name < b.name ? -1 : 1));
  for (const entry of entries) {
    if (entry.name.startsWith("_") || entry.name.startsWith(".")) continue;
    const isDirectory = entry.kind === "directory";
    const file = `${folder}/${entry.name}${isDirectory ? "/" : ""}`;
    const name = isDirectory ? entry.name : entry.name.replace(/\.md$/, "").replace(MODULE, "");
    const isSkillFile = isDirectory || entry.name.endsWith(".md") || (MODULE.test(entry.name) && !/\.d\.m?ts$|\.(test|spec)\./.test(entry.name));
    if (!isSkillFile) continue;
    const error = (code: string, message: string): void => {
      diagnostics.push({ severity: "error", code, message, file });
    };
    if (!SKILL_NAME.test(name)) {
      error("invalid_skill_name", `skill name ${JSON.stringify(name)} must be letters, digits, ".", "_" or "-" (at most 64, starting with a letter or digit)`);
      continue;
    }
    if (sources[name] !== undefined) {
      error("duplicate_skill", `skill ${name} is defined twice: ${sources[name]} and ${file}`);
      continue;
    }
    let skill: ProjectSkill | string;
    try {
      if (isDirectory) skill = await folderSkill(source, `${folder}/${entry.name}`, file);
      else if (entry.name.endsWith(".md")) skill = markdownSkill(await source.readText(`${folder}/${entry.name}`), file);
      else {
        const exported: unknown = (await source.importModule(`${folder}/${entry.name}`)).default;
        skill = moduleSkill(exported, file);
        if (typeof skill !== "string") {
          // SAFETY: moduleSkill accepted it as an object.
          diagnostics.push(...unknownKeyDiagnostics(exported as Record<string, unknown>, ["description", "markdown", "files"], `skill ${name}`, file));
        }
      }
    } catch (cause) {
      skill = `cannot load ${file}: ${errorMessage(cause)}`;
    }
    if (typeof skill === "string") {
      error("invalid_skill", skill);
      continue;
    }
    sources[name] = file;
    skills[name] = skill;
  }
  return skills;
}

// --- internals ---

function markdownSkill(text: string, file: string): ProjectSkill | string {
  const { fields, body } = parseFrontmatter(text);
  const description = fields.description || firstLine(body);
  if (!description) return `${file} is empty: a skill needs a description (frontmatter) or a first line`;
  return { description, markdown: body.trim(), source: file };
}

/**
 * The folder form. On disk the local harness copies the folder whole; from a snapshot (a worker,
 * no filesystem) the skill carries its files as text instead, like the module form.
 */
async function folderSkill(source: ProjectSource, dir: string, file: string): Promise<ProjectSkill | string> {
  const main = `${dir}/SKILL.md`;
  if (!source.exists(main)) return `${file} has no SKILL.md`;
  const text = await source.readText(main);
  const { fields } = parseFrontmatter(text);
  if (!fields.description) return `${file}SKILL.md needs a description in its frontmatter (---\\ndescription: ...\\n---)`;
  if (source.localFolder) {
    const folder = await source.localFolder(dir);
    return { description: fields.description, dir: folder.dir, digest: folder.digest, source: file };
  }
  const files: Record<string, string> = {};
  for (const path of await filesBelow(source, dir, "")) if (path !== "SKILL.md") files[path] = await source.readText(`${dir}/${path}`);
  return { description: fields.description, markdown: text, ...(Object.keys(files).length > 0 ? { files } : {}), source: file };
}

/** Every file below `dir`, relative to it, sorted. */
async function filesBelow(source: ProjectSource, dir: string, prefix: string): Promise<string[]> {
  const found: string[] = [];
  for (const entry of await source.list(dir)) {
    const relative = joinPath(prefix, entry.name);
    if (entry.name === ".git" || entry.name === "node_modules") continue;
    if (entry.kind === "directory") found.push(...(await filesBelow(source, `${dir}/${entry.name}`, relative)));
    else if (entry.kind === "file") found.push(relative);
  }
  return found.sort();
}

function moduleSkill(value: unknown, file: string): ProjectSkill | string {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return `${file} must export default defineSkill({description, markdown, files?})`;
  const def = value as Record<string, unknown>; // SAFETY: a non-null object; members checked below
  if (typeof def.description !== "string" || def.description.trim() === "") return `${file}: description must be a non-empty string`;
  if (typeof def.markdown !== "string") return `${file}: markdown must be a string`;
  const files: Record<string, string> = {};
  if (def.files !== undefined) {
    if (typeof def.files !== "object" || def.files === null || Array.isArray(def.files)) return `${file}: files must map relative paths to text`;
    for (const [path, text] of Object.entries(def.files)) {
      if (typeof text !== "string") return `${file}: files[${JSON.stringify(path)}] must be a string`;
      if (!isSafeRelative(path) || path === "SKILL.md") return `${file}: files[${JSON.stringify(path)}] must be a relative path inside the skill folder (not SKILL.md)`;
      files[path] = text;
    }
  }
  return { description: def.description, markdown: def.markdown, ...(Object.keys(files).length > 0 ? { files } : {}), source: file };
}

function isSafeRelative(path: string): boolean {
  return path !== "" && !path.startsWith("/") && !path.includes("\\") && !path.includes("\0") && path.split("/").every((s) => s !== "" && s !== "." && s !== "..");
}
