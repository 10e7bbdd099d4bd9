/**
 * `install-skills --from`: third-party Agent Skills copied into the agent's own
 * `bot/skills/<name>/` (docs/guide/agent-projects.md "Layout": the folder form of a skill).
 * A path holding `SKILL.md` is one skill; otherwise each folder below it holding one is. Every
 * skill's frontmatter is checked before anything is copied, so a bad one changes nothing.
 * @module
 */
import { cpSync, existsSync, readFileSync, readdirSync, statSync } from "node:fs";
import { basename, join } from "node:path";
import { parse } from "yaml";
import { CommandError } from "../io.ts";

/** As the loader's rule for skill names: they become folder names in the workspace. */
const SKILL_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
/** The Agent Skills format's limit on a description. */
const MAX_DESCRIPTION = 1024;

export interface FoundSkill {
  name: string;
  description: string;
  /** The folder holding its SKILL.md. */
  from: string;
}

/** The skills under `path`, validated; throws a {@link CommandError} naming every problem. */
export function findSkills(path: string): FoundSkill[] {
  if (!existsSync(path) || !statSync(path).isDirectory()) {
    throw new CommandError(`${path} is not a folder`);
  }
  const folders = existsSync(join(path, "SKILL.md"))
    ? [path]
    : readdirSync(path, { withFileTypes: true })
        .filter((entry) => entry.isDirectory() && !entry.name.startsWith(".") && existsSync(join(path, entry.name, "SKILL.md")))
        .map((entry) => join(path, entry.name))
        .sort();
  if (folders.length === 0) throw new CommandError(`no skills in ${path}: a skill is a folder holding SKILL.md (with name and description frontmatter)`);
  const problems: string[] = [];
  const skills: FoundSkill[] = [];
  for (const folder of folders) {
    const checked = checkSkill(folder);
    if (typeof checked === "string") problems.push(checked);
    else skills.push(checked);
  }
  if (problems.length > 0) throw new CommandError(`not installing: ${problems.length} skill${problems.length === 1 ? "" : "s"} with bad frontmatter\n${problems.map((p) => `  ${p}`).join("\n")}`);
  return skills;
}

/** Copies each skill to `<skillsDir>/<name>/`; refuses one that exists unless `force`. */
export function copySkills(skills: FoundSkill[], skillsDir: string, force: boolean): string[] {
  const taken = skills.filter((skill) => existsSync(join(skillsDir, skill.name)));
  if (taken.length > 0 && !force) {
    throw new CommandError(`already in ${skillsDir}: ${taken.map((s) => s.name).join(", ")} (pass --force to replace them)`);
  }
  return skills.map((skill) => {
    const to = join(skillsDir, skill.name);
    cpSync(skill.from, to, { recursive: true, force: true, filter: (source) => !basename(source).startsWith(".git") });
    return to;
  });
}

// --- internals ---

function checkSkill(folder: string): FoundSkill | string {
  const file = join(folder, "SKILL.md");
  const text = readFileSync(file, "utf8");
  const match = /^---\r?\n([\s\S]*?)\r?\n---(?:\r?\n|$)/.exec(text);
  if (!match) return `${file}: no frontmatter (start the file with ---, name: and description:, then ---)`;
  let fields: unknown;
  try {
    fields = parse(match[1] ?? "");
  } catch (error) {
    return `${file}: the frontmatter is not valid YAML (${error instanceof Error ? error.message.split("\n")[0] : String(error)})`;
  }
  const record = typeof fields === "object" && fields !== null ? (fields as Record<string, unknown>) : {};
  // The frontmatter's name decides the folder it is installed as (a cloned folder may be named otherwise).
  const name = record.name === undefined ? basename(folder) : record.name;
  if (typeof name !== "string" || !SKILL_NAME.test(name)) return `${file}: name must be letters, digits, ".", "_" or "-" (at most 64, starting with a letter or digit)`;
  const description = record.description;
  if (typeof description !== "string" || description.trim() === "") return `${file}: description is missing (add description: <when to use this skill> to the frontmatter)`;
  if (description.length > MAX_DESCRIPTION) return `${file}: description is longer than ${MAX_DESCRIPTION} characters`;
  return { name, description: description.trim(), from: folder };
}
