/**
 * Eval routes (docs/design/evals.md "Runs"): always registered, behind the agent's auth chain.
 * @module
 */
import { validate } from "../../base/validate.ts";
import { notFound } from "../../base/errors.ts";
import { isRunId } from "../../features/evals/run-store.ts";
import { startEvalRunBody } from "../schemas/evals.ts";
import { readJsonBody } from "../../base/body.ts";
import { json } from "../../base/responses.ts";
import { type RouteContext, defineRoute } from "../route.ts";

export const listEvals = defineRoute({
  method: "GET",
  path: "/v1/dev/evals",
  auth: "agent",
  summary: "The agent's eval cases and the eval config",
  handler(context) {
    const { evals } = context.agent;
    return json({ evals: evals.list(), config: evals.config() });
  },
});

export const listEvalRuns = defineRoute({
  method: "GET",
  path: "/v1/dev/evals/runs",
  auth: "agent",
  summary: "Eval runs, newest first, and the one in progress",
  async handler(context) {
    return json(await context.agent.evals.runs());
  },
});

export const startEvalRun = defineRoute({
  method: "POST",
  path: "/v1/dev/evals/runs",
  auth: "agent",
  summary: "Start a run of the matching evals (OR within filterIds and within tags, AND across them)",
  bodySchema: startEvalRunBody,
  async handler(context) {
    const body = await validate(await readJsonBody(context.request, context.host.maxBodyBytes), startEvalRunBody);
    return json(await context.agent.evals.start(body, context.auth), 202);
  },
});

export const getEvalRun = defineRoute({
  method: "GET",
  path: "/v1/dev/evals/runs/:runId",
  auth: "agent",
  summary: "An eval run's snapshot; poll until its status is no longer running",
  async handler(context) {
    return json(await context.agent.evals.get(runParam(context)));
  },
});

export const cancelEvalRun = defineRoute({
  method: "POST",
  path: "/v1/dev/evals/runs/:runId/cancel",
  auth: "agent",
  summary: "Cancel the running eval run",
  async handler(context) {
    return json(await context.agent.evals.cancel(runParam(context)));
  },
});

// --- internals ---

function runParam(context: RouteContext): string {
  const runId = context.params["runId"] ?? "";
  if (!isRunId(runId)) throw notFound("eval_run_not_found", "no eval run with that id");
  return runId;
}
