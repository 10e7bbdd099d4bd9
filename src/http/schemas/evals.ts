import * as v from "valibot";
import { MAX_TIMEOUT_MS } from "../../features/evals/validate.ts";

const names = v.pipe(v.array(v.pipe(v.string(), v.minLength(1), v.maxLength(512))), v.maxLength(1000));

/** `POST /v1/dev/evals/runs`: the filters of docs/design/evals.md "Runs", plus the CLI's `--timeout-ms`. */
export const startEvalRunBody = v.strictObject({
  filterIds: v.optional(names),
  tags: v.optional(names),
  timeoutMs: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(MAX_TIMEOUT_MS))),
});
export type StartEvalRunBody = v.InferOutput<typeof startEvalRunBody>;
