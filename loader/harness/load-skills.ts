/**
 * Loads `bot/skills/` in its three forms: `<name>.md` (optional `description` frontmatter, else
 * the first body line), `<name>/SKILL.md` with sibling files (`description` frontmatter required)
 * and `<name>.ts` (`export default defineSkill({description, markdown, files})`).
 * @module
 */
import { existsSync } from "node:fs";
import { readFile, readdir, stat } from "node:fs/promises";
import { join } from "node:path";
import type { ProjectSkill } from "../../src/harness/types.ts";
import { unknownKeyDiagnostics } from "../../src/project/unknown-keys.ts";
import type { Diagnostic } from "../../src/project/types.ts";
import { importProjectModule } from "../import-module.ts";
import { walkFiles } from "../workspace/walk.ts";
import { firstLine, parseFrontmatter } from "./frontmatter.ts";
import { errorMessage } from "../../src/errors.ts";

/** Skill names become folder names in the workspace. */
const SKILL_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
const MODULE = /\.(m?[jt]s)$/;

export async function loadSkills(root: string, rootName: string, diagnostics: Diagnostic[]): Promise<Record<string, ProjectSkill> | undefined> {
  const folder = `${rootName}/skills`;
  const dir = join(root, folder);
  if (!existsSync(dir)) return undefined;
  const skills: Record<string, ProjectSkill> = {};
  const sources: Record<string, string> = {};
  const entries = (await readdir(dir, { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : 1));
  for (const entry of entries) {
    if (entry.name.startsWith("_") || entry.name.startsWith(".")) continue;
    const file = `${folder}/${entry.name}${entry.isDirectory() ? "/" : ""}`;
    const name = entry.isDirectory() ? entry.name : entry.name.replace(/\.md$/, "").replace(MODULE, "");
    const isSkillFile = entry.isDirectory() || entry.name.endsWith(".md") || (MODULE.test(entry.name) && !/\.d\.m?ts$|\.(test|spec)\./.test(entry.name));
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
      if (entry.isDirectory()) skill = await folderSkill(join(dir, entry.name), file);
      else if (entry.name.endsWith(".md")) skill = markdownSkill(await readFile(join(dir, entry.name), "utf8"), file);
      else {
        const exported: unknown = (await importProjectModule(join(dir, entry.name))).default;
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

async function folderSkill(dir: string, file: string): Promise<ProjectSkill | string> {
  const main = join(dir, "SKILL.md");
  if (!existsSync(main)) return `${file} has no SKILL.md`;
  const { fields } = parseFrontmatter(await readFile(main, "utf8"));
  if (!fields.description) return `${file}SKILL.md needs a description in its frontmatter (---\\ndescription: ...\\n---)`;
  const parts: string[] = [];
  await walkFiles(dir, "", { maxEntries: 10_000 }, async (relative, absolute) => {
    const info = await stat(absolute);
    parts.push(`${relative}:${info.size}:${info.mtimeMs}`);
    return true;
  });
  return { description: fields.description, dir, digest: parts.join("|"), source: file };
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
