/**
 * Checks loaded schedule definitions; problems become diagnostics with their file, and only valid
 * schedules reach the host.
 * @module
 */
import type { Diagnostic } from "../../base/definitions/project.ts";
import { unknownKeyDiagnostics } from "../../engine/project/unknown-keys.ts";
import { cronProblem } from "../../base/cron.ts";

/** Schedule names are their file names; they appear in URLs and storage keys. */
export const SCHEDULE_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

/** Diagnostics for one schedule as loaded (its shape is not trusted). */
export function validateSchedule(name: string, def: unknown, file?: string): Diagnostic[] {
  const diagnostics: Diagnostic[] = [];
  const report = (code: string, message: string): void => {
    diagnostics.push({ severity: "error", code, message: `schedule ${name}: ${message}`, ...(file === undefined ? {} : { file }) });
  };
  if (!SCHEDULE_NAME.test(name)) {
    report("invalid_schedule_name", "schedule names are 1 to 64 letters, digits, _ or -, starting with a letter or digit (the file name is the name)");
  }
  if (typeof def !== "object" || def === null || Array.isArray(def)) {
    report("invalid_schedule", "the default export must be defineSchedule({cron, markdown} | {cron, run}) (an object)");
    return diagnostics;
  }
  const record = def as Record<string, unknown>; // SAFETY: a non-null object, read field by field
  const problem = cronProblem(record.cron);
  if (problem) report("invalid_schedule_cron", problem);
  const hasMarkdown = record.markdown !== undefined;
  const hasRun = record.run !== undefined;
  if (hasMarkdown === hasRun) {
    report("invalid_schedule", hasRun ? "give exactly one of markdown or run, not both" : "give exactly one of markdown (the prompt) or run (a function)");
  } else if (hasMarkdown && (typeof record.markdown !== "string" || record.markdown.trim() === "")) {
    report("invalid_schedule", "markdown must be a non-empty prompt string");
  } else if (hasRun && typeof record.run !== "function") {
    report("invalid_schedule", "run must be a function");
  }
  if (record.catchUp !== undefined && typeof record.catchUp !== "boolean") report("invalid_schedule", "catchUp must be a boolean");
  diagnostics.push(...unknownKeyDiagnostics(record, ["cron", "markdown", "run", "catchUp"], `schedule ${name}`, file));
  return diagnostics;
}
