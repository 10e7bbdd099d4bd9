/**
 * `agent-serve/evals`: evals in `evals/**\/*.eval.ts` (`defineEval`), their config in
 * `evals/evals.config.ts` (`defineEvalConfig`), and the matchers of `t.check`.
 * @module
 */
export { defineEval, defineEvalConfig } from "../features/evals/define.ts";
export { includes, matches, satisfies } from "../features/evals/matchers.ts";
export type {
  CasesEvalDefinition,
  EvalCaseDefinition,
  EvalCaseResult,
  EvalCaseStatus,
  EvalConfig,
  EvalContext,
  EvalDefinition,
  EvalFailure,
  EvalRunError,
  EvalRunSnapshot,
  EvalRunStatus,
  EvalTest,
  Matcher,
  MatchResult,
  SingleEvalDefinition,
} from "../base/definitions/evals.ts";
