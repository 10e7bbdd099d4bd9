/**
 * The `t` of one case: drives the case's chat session (purpose `eval`) and records failed
 * assertions. Once the case is judged, `t` is closed: later assertions change nothing and a late
 * `send` throws.
 * @module
 */
import type { EventLogView } from "../../base/events/log-view.ts";
import type { SendResult } from "../../base/definitions/sessions.ts";
import { preview } from "./matchers.ts";
import { partialMatch } from "./partial-match.ts";
import { observeTurn } from "./session-turn.ts";
import type { EvalContext, EvalFailure, Matcher, MatchResult } from "../../base/definitions/evals.ts";
import { errorMessage } from "../../base/errors.ts";

/** How a case reaches the agent. */
export interface CaseDriver {
  log: EventLogView;
  /** Starts (no token) or continues the case's session. */
  send(message: string, options: { continuationToken?: string; title: string }): Promise<SendResult>;
  /** The declared `effect` of a tool, for `notCalledTool({effect})`. */
  toolEffect?(toolName: string): string | undefined;
}

export interface CaseContext extends EvalContext {
  /** Failures recorded so far. */
  readonly failures: readonly EvalFailure[];
  /** Waits for every pending `check`, including checks started while waiting. */
  settle(): Promise<void>;
  /** Freezes the result: later assertions are ignored, a later `send` throws. */
  close(): void;
}

export function createEvalContext(input: {
  id: string;
  driver: CaseDriver;
  /** Aborted when the case times out or the run is cancelled. */
  signal: AbortSignal;
  /** Called once the case's session exists. */
  onSession(sessionId: string): void;
}): CaseContext {
  const { driver, signal } = input;
  const failures: EvalFailure[] = [];
  const pending = new Set<Promise<boolean>>();
  const toolCalls: Array<{ toolName: string; input: unknown }> = [];
  let sessionId: string | undefined;
  let token: string | undefined;
  let reply = "";
  let last: { succeeded: boolean; error?: string } | undefined;
  let sending = false;
  let closed = false;

  const record = (assertion: string, message: string): false => {
    if (!closed) failures.push({ assertion, message });
    return false;
  };

  const context: CaseContext = {
    id: input.id,
    get reply() {
      return reply;
    },
    get sessionId() {
      return sessionId;
    },
    get failures() {
      return failures;
    },
    async send(text) {
      if (closed) throw new Error(`case ${input.id} has ended; t.send is no longer possible`);
      if (sending) throw new Error("t.send is still waiting for the previous reply; await it before sending again");
      if (typeof text !== "string" || text.length === 0) throw new Error("t.send needs a non-empty string");
      signal.throwIfAborted();
      sending = true;
      try {
        const from = sessionId === undefined ? 0 : await driver.log.length(sessionId);
        const sent = await driver.send(text, { ...(token === undefined ? {} : { continuationToken: token }), title: `eval ${input.id}` });
        if (sessionId === undefined) input.onSession(sent.sessionId);
        sessionId = sent.sessionId;
        token = sent.continuationToken;
        const observed = await observeTurn(driver.log, sent.sessionId, from, signal);
        toolCalls.push(...observed.toolCalls);
        reply = observed.reply;
        last = { succeeded: observed.succeeded, ...(observed.error === undefined ? {} : { error: observed.error }) };
        return reply;
      } finally {
        sending = false;
      }
    },
    succeeded() {
      if (!last) return record("succeeded", "no turn to judge: call t.send first");
      if (!last.succeeded) return record("succeeded", `the last turn failed: ${last.error ?? "no reason given"}`);
      return true;
    },
    calledTool(name, options) {
      const calls = toolCalls.filter((call) => call.toolName === name);
      if (calls.length === 0) {
        const made = [...new Set(toolCalls.map((call) => call.toolName))];
        return record("calledTool", `expected a call to ${name}; ${made.length === 0 ? "no tool was called" : `tools called: ${made.join(", ")}`}`);
      }
      if (options?.input === undefined || calls.some((call) => partialMatch(call.input, options.input))) return true;
      const inputs = calls.map((call) => preview(call.input, 120)).join(", ");
      return record("calledTool", `${name} was called, but no call's input contains ${preview(options.input, 120)} (inputs: ${inputs})`);
    },
    notCalledTool(name) {
      if (typeof name === "object" && name !== null) {
        // `{effect: "write"}`: no tool declared with that effect was called.
        const made = toolCalls.filter((call) => driver.toolEffect?.(call.toolName) === name.effect).map((call) => call.toolName);
        if (made.length === 0) return true;
        return record("notCalledTool", `expected no call to a ${name.effect} tool, but ${[...new Set(made)].join(", ")} ${made.length === 1 ? "was" : "were"} called`);
      }
      const count = toolCalls.filter((call) => call.toolName === name).length;
      return count === 0 ? true : record("notCalledTool", `expected no call to ${name}, but it was called ${count} time${count === 1 ? "" : "s"}`);
    },
    check(value, matcher) {
      const result = (async (): Promise<boolean> => {
        if (typeof matcher !== "object" || matcher === null || typeof matcher.test !== "function") {
          return record("check", "t.check needs a matcher such as includes(...), matches(...) or satisfies(...)");
        }
        let outcome: MatchResult;
        try {
          outcome = await (matcher as Matcher<typeof value>).test(value);
        } catch (error) {
          outcome = { pass: false, message: `${matcher.label} threw: ${errorMessage(error)}` };
        }
        return outcome.pass === true ? true : record("check", outcome.message ?? `expected ${preview(value)} to match ${matcher.label}`);
      })();
      pending.add(result);
      void result.finally(() => pending.delete(result));
      return result;
    },
    fail(message) {
      record("fail", String(message));
    },
    async settle() {
      while (pending.size > 0) await Promise.allSettled(pending);
    },
    close() {
      closed = true;
    },
  };
  return context;
}
