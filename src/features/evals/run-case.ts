/**
 * Runs one case: the test against a fresh `t`, bounded by the case's time limit and by the run's
 * cancel signal. A case that times out or is cancelled is judged at once; its session's turn is
 * stopped, and whatever the test does afterwards changes nothing.
 * @module
 */
import type { EvalCase } from "./catalog.ts";
import { type CaseDriver, createEvalContext } from "./eval-context.ts";
import type { EvalCaseResult } from "../../base/definitions/evals.ts";

/** Why a case was cut short; `send` rejects with it, so a test sees a real Error. */
export class EvalAbort extends Error {
  override readonly name = "EvalAbort";
  readonly kind: "timeout" | "cancel";
  constructor(kind: "timeout" | "cancel", message: string) {
    super(message);
    this.kind = kind;
  }
}

export interface RunCaseOptions {
  driver: CaseDriver;
  /** Interrupts the case's running turn. */
  stop(sessionId: string): Promise<unknown>;
  timeoutMs: number;
  /** The run's signal: aborting it cancels the case. */
  signal: AbortSignal;
  now: () => number;
  /** Called once the case's session exists, so pollers see it while the case runs. */
  onSession(sessionId: string): void;
}

export async function runCase(evalCase: EvalCase, options: RunCaseOptions): Promise<EvalCaseResult> {
  const started = options.now();
  const abort = new AbortController();
  const cancel = (): void => abort.abort(new EvalAbort("cancel", "the run was cancelled"));
  if (options.signal.aborted) cancel();
  else options.signal.addEventListener("abort", cancel, { once: true });
  const timer = setTimeout(
    () => abort.abort(new EvalAbort("timeout", `the case did not finish within ${options.timeoutMs} ms`)),
    options.timeoutMs,
  );
  const t = createEvalContext({ id: evalCase.id, driver: options.driver, signal: abort.signal, onSession: options.onSession });
  const body = (async () => {
    await evalCase.test(t);
    await t.settle();
  })();
  // The test may go on after an abort; its late rejection is not a failure of anything.
  body.catch(() => {});
  let ended: { kind: "done" } | { kind: "error"; error: unknown } | { kind: "aborted"; reason: EvalAbort };
  try {
    ended = await Promise.race([
      body.then(
        () => ({ kind: "done" as const }),
        (error: unknown) => ({ kind: "error" as const, error }),
      ),
      aborted(abort.signal).then((reason) => ({ kind: "aborted" as const, reason })),
    ]);
  } finally {
    clearTimeout(timer);
    options.signal.removeEventListener("abort", cancel);
  }
  // An abort that raced a thrown EvalAbort is still the abort.
  if (ended.kind === "error" && ended.error instanceof EvalAbort) ended = { kind: "aborted", reason: ended.error };
  t.close();
  const failures = [...t.failures];
  // A send the test did not await may still be running: nothing of the case outlives it.
  if (!abort.signal.aborted) abort.abort(ended.kind === "aborted" ? ended.reason : new EvalAbort("cancel", "the case has ended"));
  if (t.sessionId !== undefined) await options.stop(t.sessionId).catch(() => {});
  const result = (status: EvalCaseResult["status"]): EvalCaseResult => ({
    id: evalCase.id,
    status,
    durationMs: Math.max(0, options.now() - started),
    sessionId: t.sessionId ?? null,
    failures,
  });
  switch (ended.kind) {
    case "done":
      return result(failures.length === 0 ? "passed" : "failed");
    case "error":
      failures.push({ assertion: "error", message: describe(ended.error) });
      return result("failed");
    case "aborted":
      if (ended.reason.kind === "cancel") return result("cancelled");
      failures.push({ assertion: "timeout", message: ended.reason.message });
      return result("failed");
  }
}

// --- internals ---

function aborted(signal: AbortSignal): Promise<EvalAbort> {
  return new Promise((resolve) => {
    const done = (): void => resolve(signal.reason instanceof EvalAbort ? signal.reason : new EvalAbort("cancel", "the run was cancelled"));
    if (signal.aborted) done();
    else signal.addEventListener("abort", done, { once: true });
  });
}

function describe(error: unknown): string {
  if (error instanceof Error) return error.message || error.name;
  return String(error);
}
