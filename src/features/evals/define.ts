import type { CasesEvalDefinition, EvalConfig, SingleEvalDefinition } from "../../base/definitions/evals.ts";

/**
 * Declares an eval in `evals/<path>.eval.ts`; the path names it (`evals/builds/index.eval.ts` is
 * `builds`). Exactly one of `test` or `cases`. A file may also export an array of evals, named
 * `<path>/0000`, `<path>/0001`, ... A typed identity function.
 * @example
 * export default defineEval({
 *   tags: ["smoke"],
 *   async test(t) {
 *     await t.send("hello");
 *     t.succeeded();
 *     await t.check(t.reply, includes(/hello/));
 *   },
 * });
 * @example
 * export default defineEval({
 *   cases: [
 *     { id: "refund", test: async (t) => { await t.send("refund order A1"); t.calledTool("refund", { input: { orderId: "A1" } }); } },
 *     { id: "chitchat", test: async (t) => { await t.send("hi"); t.notCalledTool("refund"); } },
 *   ],
 * });
 */
export function defineEval<const T extends SingleEvalDefinition | CasesEvalDefinition>(definition: T): T {
  return definition;
}

/**
 * Declares `evals/evals.config.ts`: how many cases run at once (1 to 200, default 4) and the
 * default case time limit (default 180 s).
 * @example
 * export default defineEvalConfig({ maxConcurrency: 20, timeoutMs: 60_000 });
 */
export function defineEvalConfig<const T extends EvalConfig>(config: T): T {
  return config;
}
