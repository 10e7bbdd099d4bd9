/**
 * `agent-serve install-skills [dir]`: agent-serve's authoring skills as Agent Skills
 * (`<name>/SKILL.md`) in the project's coding-assistant folders, `.cursor/skills/` and
 * `.claude/skills/`, with a pointer to them in `AGENTS.md`; rerunning refreshes them. With
 * `--from <folder|git URL|npm package>` it installs third-party skills into the agent's own
 * `bot/skills/` instead
 * (docs/guide/cli.md "install-skills").
 * @module
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { EXIT_OK } from "./io.ts";
import type { CliIo } from "./io.ts";
import { AUTHORING_SKILLS, skillMarkdown } from "./skills/authoring-skills.ts";
import { openSkillSource } from "./skills/skill-source.ts";
import { copySkills, findSkills } from "./skills/third-party.ts";

export interface InstallSkillsArgs {
  /** The project directory, relative to `io.cwd`. @default "." */
  dir?: string;
  /** Third-party skills to install into `bot/skills/`: a folder, a git URL or an npm package. */
  from?: string;
  /** `--from`: replace skills that are already there. */
  force?: boolean;
  json?: boolean;
}

/** The coding-assistant folders that read Agent Skills. */
const ASSISTANT_FOLDERS = [".cursor/skills", ".claude/skills"];
const BEGIN = "<!-- agent-serve skills: written by `agent-serve install-skills`; rerun it to refresh -->";
const END = "<!-- /agent-serve skills -->";

export async function installSkillsCommand(args: InstallSkillsArgs, io: CliIo): Promise<number> {
  const dir = resolve(io.cwd, args.dir ?? ".");
  if (args.from !== undefined) {
    const source = await openSkillSource(args.from, io);
    try {
      const skills = findSkills(source.folder);
      const written = copySkills(skills, join(dir, "bot", "skills"), args.force === true);
      if (args.json) io.stdout.write(`${JSON.stringify({ ok: true, source: source.kind, installed: skills.map((s) => ({ name: s.name, description: s.description })), folders: written })}\n`);
      else io.stdout.write(`installed ${skills.map((s) => s.name).join(", ")} into ${join(dir, "bot", "skills")} (agent-serve validate checks them as the agent loads them)\n`);
      return EXIT_OK;
    } finally {
      source.cleanup();
    }
  }
  const files: string[] = [];
  for (const folder of ASSISTANT_FOLDERS) {
    for (const skill of AUTHORING_SKILLS) {
      const file = join(dir, folder, skill.name, "SKILL.md");
      mkdirSync(join(dir, folder, skill.name), { recursive: true });
      writeFileSync(file, skillMarkdown(skill));
      files.push(file);
    }
  }
  const agents = join(dir, "AGENTS.md");
  writeFileSync(agents, withPointer(existsSync(agents) ? readFileSync(agents, "utf8") : ""));
  files.push(agents);
  if (args.json) io.stdout.write(`${JSON.stringify({ ok: true, skills: AUTHORING_SKILLS.map((s) => s.name), files })}\n`);
  else io.stdout.write(`wrote ${AUTHORING_SKILLS.length} skills into ${ASSISTANT_FOLDERS.map((f) => join(dir, f)).join(" and ")}, and a pointer in ${agents}\n`);
  return EXIT_OK;
}

// --- internals ---

/** `text` with the pointer block added, or replaced where an earlier run wrote it. */
function withPointer(text: string): string {
  const block = [
    BEGIN,
    "## agent-serve skills",
    "",
    "This is an agent-serve project. Before writing tools, channels, schedules or evals, read the matching skill",
    `in \`.cursor/skills/\` or \`.claude/skills/\`: ${AUTHORING_SKILLS.map((s) => `\`${s.name}\``).join(", ")}.`,
    "Check changes with `npx agent-serve validate`; test offline with the scripted model (`agent-serve-testing`).",
    END,
  ].join("\n");
  const start = text.indexOf(BEGIN);
  const end = text.indexOf(END);
  if (start !== -1 && end > start) return `${text.slice(0, start)}${block}${text.slice(end + END.length)}`;
  return text === "" ? `${block}\n` : `${text.replace(/\n*$/, "\n\n")}${block}\n`;
}
