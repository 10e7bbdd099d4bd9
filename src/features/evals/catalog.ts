/**
 * From eval definitions to runnable cases: ids from paths and case ids, iterations, filters.
 *
 * Ids (docs/design/evals.md "Definitions and ids"): `evals/readiness.eval.ts` is `readiness`,
 * `evals/builds/index.eval.ts` is
 * `builds`, a case appends `/<case id>`, an exported array names its entries `<path>/0000`, ...
 * and iterations beyond one run as `<id>#1`, `<id>#2`, ...
 * @module
 */
import type { Diagnostic } from "../../base/definitions/project.ts";
import type { EvalDefinition, EvalTest } from "../../base/definitions/evals.ts";
import { validateEval } from "./validate.ts";

/** `*.eval.ts`, `*.eval.mts`, `*.eval.js`, `*.eval.mjs`. */
export const EVAL_FILE = /\.eval\.m?[jt]s$/;

/** One runnable case of a run. */
export interface EvalCase {
  /** The id in the run snapshot: `baseId`, or `baseId#n` with iterations. */
  id: string;
  /** The case's id without the iteration suffix, as listed and filtered. */
  baseId: string;
  tags: string[];
  description: string | null;
  /** The case's own limit, else its eval's; undefined when neither sets one. */
  timeoutMs: number | undefined;
  test: EvalTest;
}

/** One listed eval case (`GET /v1/dev/evals`). */
export interface EvalListing {
  id: string;
  tags: string[];
  description: string | null;
}

export interface EvalCatalog {
  evals: EvalListing[];
  /** Every case with iterations expanded, in listing order. */
  cases: EvalCase[];
  /** Invalid definitions and duplicate ids; those definitions are left out. */
  diagnostics: Diagnostic[];
}

/** The id of the eval file at `relative` (below `evals/`, `/`-separated). */
export function evalIdFromPath(relative: string): string {
  const path = relative.replace(EVAL_FILE, "");
  if (path === "index") return path;
  return path.endsWith("/index") ? path.slice(0, -"/index".length) : path;
}

/** The evals a file's default export names: itself, or each array element as `<id>/0000`, ... */
export function exportedEvals(id: string, exported: unknown): Array<[string, unknown]> {
  if (!Array.isArray(exported)) return [[id, exported]];
  const width = Math.max(4, String(exported.length - 1).length);
  return exported.map((entry, i): [string, unknown] => [`${id}/${String(i).padStart(width, "0")}`, entry]);
}

/**
 * The runnable cases of `evals`; definitions with errors are left out. `files` names the file of
 * each eval id for diagnostics.
 */
export function buildCatalog(evals: Record<string, EvalDefinition>, files: Record<string, string> = {}): EvalCatalog {
  const catalog: EvalCatalog = { evals: [], cases: [], diagnostics: [] };
  const owners = new Map<string, string>();
  for (const [evalId, definition] of Object.entries(evals).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const file = files[evalId];
    const found = validateEval(definition, evalId, file);
    catalog.diagnostics.push(...found);
    if (found.some((d) => d.severity === "error")) continue;
    const entries = definition.cases
      ? definition.cases.map((item) => ({ baseId: `${evalId}/${item.id}`, item }))
      : [{ baseId: evalId, item: { description: undefined, test: definition.test, timeoutMs: undefined } }];
    const clash = entries.find(({ baseId }) => owners.has(baseId));
    if (clash) {
      catalog.diagnostics.push({
        severity: "error",
        code: "duplicate_eval",
        message: `eval id ${clash.baseId} is defined twice: by eval ${owners.get(clash.baseId)} and by eval ${evalId}`,
        ...(file === undefined ? {} : { file }),
      });
      continue;
    }
    const iterations = definition.iterations ?? 1;
    const tags = [...(definition.tags ?? [])];
    for (const { baseId, item } of entries) {
      owners.set(baseId, evalId);
      const description = item.description ?? definition.description ?? null;
      catalog.evals.push({ id: baseId, tags, description });
      for (let n = 1; n <= iterations; n++) {
        catalog.cases.push({
          id: iterations === 1 ? baseId : `${baseId}#${n}`,
          baseId,
          tags,
          description,
          timeoutMs: item.timeoutMs ?? definition.timeoutMs,
          test: item.test,
        });
      }
    }
  }
  return catalog;
}

/** Run filters (docs/design/evals.md "Runs"): OR within `filterIds` and within `tags`, AND across them. */
export interface EvalFilter {
  /** Case ids; an id also selects everything below it (`prs` selects `prs/checkout`). */
  filterIds?: readonly string[];
  tags?: readonly string[];
}

/** The cases a filter selects; an absent or empty list does not filter. */
export function selectCases(cases: readonly EvalCase[], filter: EvalFilter): EvalCase[] {
  const ids = filter.filterIds ?? [];
  const tags = filter.tags ?? [];
  return cases.filter(
    (item) =>
      (ids.length === 0 || ids.some((id) => item.id === id || item.baseId === id || item.baseId.startsWith(`${id}/`))) &&
      (tags.length === 0 || tags.some((tag) => item.tags.includes(tag))),
  );
}
