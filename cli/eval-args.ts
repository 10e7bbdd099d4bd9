/**
 * The arguments of `agent-serve eval`, read from cac's flags and the raw argv (repeatable string
 * options come back from argv as written: cac would turn `--filter 0001` into the number 1).
 * @module
 */
import { type Flags, positiveInteger, targetArgs } from "./flags.ts";
import { UsageError } from "./io.ts";
import { rawOptionValues } from "./raw-option.ts";
import type { TargetArgs } from "./target.ts";

export interface EvalArgs extends TargetArgs {
  /** List the evals instead of running them. @default false */
  list: boolean;
  /** Run cases with any of these tags. @default [] (no tag filter) */
  tags: string[];
  /** Run these case ids and everything below them. @default [] (no id filter) */
  filters: string[];
  /** Case time limit unless a case sets its own (docs/guide/http-api.md "Limits"). */
  timeoutMs?: number;
  /** @default false */
  json: boolean;
}

export function evalArgs(dir: unknown, flags: Flags, argv: string[]): EvalArgs {
  const tags = rawOptionValues(argv, "tag");
  const filters = rawOptionValues(argv, "filter");
  if (flags.tag !== undefined && tags.length === 0) throw new UsageError("--tag needs a value");
  if (flags.filter !== undefined && filters.length === 0) throw new UsageError("--filter needs a value");
  return {
    ...targetArgs(dir, flags, argv),
    list: flags.list === true,
    tags,
    filters,
    ...(flags.timeoutMs === undefined ? {} : { timeoutMs: positiveInteger(flags.timeoutMs, "--timeout-ms") }),
    json: flags.json === true,
  };
}
