/**
 * `agent-serve/skills`: declare a skill in TypeScript (`bot/skills/<name>.ts`). Skills in
 * Markdown (`skills/<name>.md`, `skills/<name>/SKILL.md`) need no import.
 * @module
 */
import type { SkillDefinition } from "../base/definitions/harness.ts";

export type { SkillDefinition } from "../base/definitions/harness.ts";

/**
 * Declares a skill: an on-demand procedure the model loads from
 * `.cursor/skills/<name>/SKILL.md` when its description matches the task. A typed identity function.
 * @example
 * export default defineSkill({
 *   description: "Release checklist: use before tagging a version",
 *   markdown: "1. Run the tests\n2. Read references/changelog.md",
 *   files: { "references/changelog.md": "Keep entries short." },
 * });
 */
export function defineSkill<const T extends SkillDefinition>(skill: T): T {
  return skill;
}
