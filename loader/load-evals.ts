/**
 * Loads the project's evals: `evals/**\/*.eval.ts` (each default-exporting `defineEval({...})` or
 * an array of them) and `evals/evals.config.ts`, at the project root next to `bot/`. Import
 * failures, invalid definitions and duplicate ids become error diagnostics and are left out.
 * @module
 */
import { EVAL_FILE, buildCatalog, evalIdFromPath, exportedEvals } from "../src/features/evals/catalog.ts";
import type { EvalConfig, EvalDefinition } from "../src/base/definitions/evals.ts";
import { validateEval, validateEvalConfig } from "../src/features/evals/validate.ts";
import type { Diagnostic } from "../src/base/definitions/project.ts";
import { errorMessage } from "../src/base/errors.ts";
import type { ProjectSource } from "./project-source.ts";

const FOLDER = "evals";
const CONFIG_FILES = ["evals.config.ts", "evals.config.mts", "evals.config.js", "evals.config.mjs"];

export interface LoadedEvals {
  evals?: Record<string, EvalDefinition>;
  evalConfig?: EvalConfig;
}

/** The valid evals and config under `<root>/evals/`; nothing when the folder does not exist. */
export async function loadEvals(source: ProjectSource, diagnostics: Diagnostic[]): Promise<LoadedEvals> {
  if (!source.exists(FOLDER)) return {};
  const loaded: LoadedEvals = {};
  const config = await loadConfig(source, diagnostics);
  if (config) loaded.evalConfig = config;
  let relatives: string[];
  try {
    // Code-unit order: `dup.eval.ts` loads before `dup/index.eval.ts`, so the flat file keeps the id.
    relatives = (await evalFiles(source, FOLDER)).sort();
  } catch (error) {
    diagnostics.push({ severity: "error", code: "evals_unreadable", message: `cannot read ${FOLDER}/: ${errorMessage(error)}`, file: `${FOLDER}/` });
    return loaded;
  }
  const evals: Record<string, EvalDefinition> = {};
  const files: Record<string, string> = {};
  for (const relative of relatives) {
    const file = `${FOLDER}/${relative}`;
    let exported: unknown;
    try {
      exported = (await source.importModule(file)).default;
    } catch (error) {
      diagnostics.push({ severity: "error", code: "eval_import_failed", message: `cannot load ${file}: ${errorMessage(error)}`, file });
      continue;
    }
    if (exported === undefined) {
      diagnostics.push({ severity: "error", code: "invalid_eval", message: `${file} must export default defineEval({...}) or an array of them`, file });
      continue;
    }
    for (const [id, definition] of exportedEvals(evalIdFromPath(relative), exported)) {
      const previous = files[id];
      if (previous !== undefined) {
        diagnostics.push({ severity: "error", code: "duplicate_eval", message: `eval ${id} is defined twice: ${previous} and ${file}`, file });
        continue;
      }
      files[id] = file;
      const found = validateEval(definition, id, file);
      diagnostics.push(...found);
      if (!found.some((d) => d.severity === "error")) evals[id] = definition as EvalDefinition; // SAFETY: validated just above
    }
  }
  // Case ids can collide across evals (`prs` with case `checkout` and `prs/checkout.eval.ts`).
  const catalog = buildCatalog(evals, files);
  diagnostics.push(...catalog.diagnostics);
  const listed = new Set(catalog.evals.map((entry) => entry.id));
  for (const [id, definition] of Object.entries(evals)) {
    const ids = definition.cases ? definition.cases.map((item) => `${id}/${item.id}`) : [id];
    if (!ids.every((caseId) => listed.has(caseId))) delete evals[id];
  }
  if (Object.keys(evals).length > 0) loaded.evals = evals;
  return loaded;
}

// --- internals ---

async function loadConfig(source: ProjectSource, diagnostics: Diagnostic[]): Promise<EvalConfig | undefined> {
  const name = CONFIG_FILES.find((candidate) => source.exists(`${FOLDER}/${candidate}`));
  if (name === undefined) return undefined;
  const file = `${FOLDER}/${name}`;
  let config: unknown;
  try {
    config = (await source.importModule(file)).default;
  } catch (error) {
    diagnostics.push({ severity: "error", code: "eval_config_import_failed", message: `cannot load ${file}: ${errorMessage(error)}`, file });
    return undefined;
  }
  const found = validateEvalConfig(config, file);
  diagnostics.push(...found);
  return found.some((d) => d.severity === "error") ? undefined : (config as EvalConfig); // SAFETY: validated just above
}

/** `*.eval.*` files below `dir`, relative; names starting with `_` or `.` are skipped. */
async function evalFiles(source: ProjectSource, dir: string, prefix = ""): Promise<string[]> {
  const entries = await source.list(dir);
  const files: string[] = [];
  for (const entry of entries) {
    if (entry.name.startsWith("_") || entry.name.startsWith(".") || entry.name === "node_modules") continue;
    if (entry.kind === "directory") files.push(...(await evalFiles(source, `${dir}/${entry.name}`, `${prefix}${entry.name}/`)));
    else if (EVAL_FILE.test(entry.name) && !/\.d\.m?ts$/.test(entry.name)) files.push(`${prefix}${entry.name}`);
  }
  return files;
}
