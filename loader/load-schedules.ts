/**
 * Loads `bot/schedules/`: `<name>.md` (a `cron` frontmatter, the body is the prompt) and
 * `<name>.ts` (`export default defineSchedule({...})`). The file name is the schedule id. Invalid
 * schedules become error diagnostics and are left out.
 * @module
 */
import type { Diagnostic } from "../src/base/definitions/project.ts";
import { parseScheduleMarkdown } from "../src/features/schedules/markdown.ts";
import type { ScheduleDefinition } from "../src/base/definitions/schedules.ts";
import { validateSchedule } from "../src/features/schedules/validate.ts";
import { errorMessage } from "../src/base/errors.ts";
import type { ProjectSource } from "./project-source.ts";

const MODULE_EXTENSIONS = [".ts", ".mts", ".js", ".mjs"];

/** The valid schedules under `<root>/<rootName>/schedules`, or undefined when the folder does not exist. */
export async function loadSchedules(
  source: ProjectSource,
  rootName: string,
  diagnostics: Diagnostic[],
): Promise<Record<string, ScheduleDefinition> | undefined> {
  const folder = `${rootName}/schedules`;
  if (!source.exists(folder)) return undefined;
  const schedules: Record<string, ScheduleDefinition> = {};
  let names: string[];
  try {
    names = (await source.list(folder))
      .filter((entry) => entry.kind === "file" && isScheduleFile(entry.name))
      .map((entry) => entry.name)
      .sort();
  } catch (error) {
    diagnostics.push({ severity: "error", code: "schedules_unreadable", message: `cannot read ${folder}/: ${errorMessage(error)}`, file: `${folder}/` });
    return schedules;
  }
  const seen = new Map<string, string>();
  for (const name of names) {
    const file = `${folder}/${name}`;
    const id = name.replace(/\.(md|m?[jt]s)$/, "");
    const previous = seen.get(id);
    if (previous !== undefined) {
      diagnostics.push({ severity: "error", code: "duplicate_schedule", message: `schedule ${id} is defined twice: ${previous} and ${file}`, file });
      delete schedules[id];
      continue;
    }
    seen.set(id, file);
    const definition = name.endsWith(".md") ? await loadMarkdown(source, file, id, diagnostics) : await loadModule(source, file, id, diagnostics);
    if (definition === undefined) continue;
    const found = validateSchedule(id, definition, file);
    diagnostics.push(...found);
    if (!found.some((d) => d.severity === "error")) schedules[id] = definition as ScheduleDefinition; // SAFETY: validated above
  }
  return schedules;
}

// --- internals ---

async function loadMarkdown(source: ProjectSource, file: string, id: string, diagnostics: Diagnostic[]): Promise<unknown> {
  const parsed = parseScheduleMarkdown(await source.readText(file));
  for (const problem of parsed.problems) diagnostics.push({ ...problem, message: `schedule ${id}: ${problem.message}`, file });
  return parsed.problems.some((p) => p.severity === "error") ? undefined : parsed.definition;
}

async function loadModule(source: ProjectSource, file: string, id: string, diagnostics: Diagnostic[]): Promise<unknown> {
  try {
    return (await source.importModule(file)).default;
  } catch (error) {
    diagnostics.push({ severity: "error", code: "schedule_import_failed", message: `schedule ${id}: cannot load ${file}: ${errorMessage(error)}`, file });
    return undefined;
  }
}

/** Schedule files; names starting with `_` or `.`, declarations and colocated tests are helpers. */
function isScheduleFile(name: string): boolean {
  if (name.startsWith("_") || name.startsWith(".")) return false;
  if (name.endsWith(".md")) return true;
  if (!MODULE_EXTENSIONS.some((ext) => name.endsWith(ext))) return false;
  return !/\.d\.m?ts$/.test(name) && !/\.(test|spec)\.m?[jt]s$/.test(name);
}
