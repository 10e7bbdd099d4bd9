/**
 * Evals (`evals/**\/*.eval.ts`): definitions, the `t` API a test drives the agent with, matchers,
 * and the run snapshot of docs/design/evals.md "Runs".
 * @module
 */

/** One eval: exactly one of `test` (a single case) or `cases` (named cases). */
export type EvalDefinition = SingleEvalDefinition | CasesEvalDefinition;

interface EvalDefinitionBase {
  /** Labels for `tags` filters (`agent-serve eval --tag smoke`). @default [] */
  tags?: string[];
  description?: string;
  /**
   * Runs every case this many times, each in a fresh session; the runs are named `<id>#1`,
   * `<id>#2`, ... @default 1
   */
  iterations?: number;
  /** Time limit of each case that sets none itself (docs/guide/http-api.md "Limits": the case's own limit wins). */
  timeoutMs?: number;
}

export interface SingleEvalDefinition extends EvalDefinitionBase {
  test: EvalTest;
  cases?: undefined;
}

export interface CasesEvalDefinition extends EvalDefinitionBase {
  /** Each case id appends one path segment to the eval id (`prs/checkout`); unique per eval. */
  cases: EvalCaseDefinition[];
  test?: undefined;
}

export interface EvalCaseDefinition {
  /** One path segment: letters, digits, `_`, `-` or `.`. */
  id: string;
  description?: string;
  test: EvalTest;
  /** Time limit of this case; wins over every other limit. */
  timeoutMs?: number;
}

/** The body of a case. Assertions on `t` record failures; a throw fails the case too. */
export type EvalTest = (t: EvalContext) => unknown;

/** `evals/evals.config.ts`. */
export interface EvalConfig {
  /** Cases run at once, 1 to 200. @default 4 */
  maxConcurrency?: number;
  /** Time limit of a case that sets none, below the CLI's `--timeout-ms`. @default 180000 */
  timeoutMs?: number;
}

/**
 * The `t` of a case: one chat session (purpose `eval`) and assertions over it. Assertions return
 * whether they held and record a failure when not; they never throw.
 */
export interface EvalContext {
  /** The case id, e.g. `prs/checkout` or `readiness#2`. */
  readonly id: string;
  /**
   * Sends a message: the first starts the case's chat session, later ones continue it. Resolves
   * with the reply once the session waits again (a failed turn resolves with `""`).
   */
  send(text: string): Promise<string>;
  /** The reply of the latest `send` (`""` before any, or when the turn gave none). */
  readonly reply: string;
  /** The session of this case, once `send` started it. */
  readonly sessionId: string | undefined;
  /** Whether the latest turn completed (not failed or interrupted). */
  succeeded(): boolean;
  /**
   * Whether the model called `name` in this case's session; with `input`, some call's input must
   * contain it (objects match on the keys given, recursively; arrays element by element).
   */
  calledTool(name: string, options?: { input?: unknown }): boolean;
  /** Whether the model never called `name` in this case's session. */
  notCalledTool(name: string | { effect: "read" | "write" }): boolean;
  /** Checks `value` with a matcher; the case waits for every check before it is judged. */
  check<T>(value: T, matcher: Matcher<T>): Promise<boolean>;
  /** Records a failure by hand. */
  fail(message: string): void;
}

/** What `t.check` applies: `includes`, `matches`, `satisfies` or your own. */
export interface Matcher<in T = unknown> {
  /** Shown in failure messages, e.g. `includes(/refund/)`. */
  readonly label: string;
  test(value: T): MatchResult | Promise<MatchResult>;
}

export interface MatchResult {
  pass: boolean;
  /** Why it did not pass. */
  message?: string;
}

export type EvalRunStatus = "running" | "completed" | "failed" | "cancelled";
export type EvalCaseStatus = "pending" | "running" | "passed" | "failed" | "cancelled";

/** One assertion that did not hold, or what ended the case (`error`, `timeout`). */
export interface EvalFailure {
  /** `send`, `succeeded`, `calledTool`, `notCalledTool`, `check`, `fail`, `error` or `timeout`. */
  assertion: string;
  message: string;
}

export interface EvalCaseResult {
  id: string;
  status: EvalCaseStatus;
  /** Wall time of the case; 0 until it finishes. */
  durationMs: number;
  /** The case's chat session, once it sent a message. */
  sessionId: string | null;
  failures: EvalFailure[];
}

/** A problem with the run as a whole (the host restarted or closed, storage failed). */
export interface EvalRunError {
  message: string;
  at: string;
}

/** The run snapshot of docs/design/evals.md "Runs". */
export interface EvalRunSnapshot {
  /** `eval_<id>`. */
  runId: string;
  /**
   * `completed` once every case ran (case outcomes are in `passed` and `failed`), `failed` when
   * the run itself could not finish (see `errors`), `cancelled` after a cancel.
   */
  status: EvalRunStatus;
  startedAt: string;
  finishedAt?: string;
  total: number;
  passed: number;
  failed: number;
  cases: EvalCaseResult[];
  errors: EvalRunError[];
}
