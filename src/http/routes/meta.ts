/** Per-agent liveness and the cost report, with usage against each budget limit (docs/guide/budgets.md). */
import { loadPriceCatalog } from "../../features/cost/prices.ts";
import { foldCostReport } from "../../features/cost/report.ts";
import { json } from "../../base/responses.ts";
import type { SessionCostResponse } from "../response-types.ts";
import { defineRoute } from "../route.ts";
import { sessionParam, viewer } from "./sessions.ts";

export const agentHealth = defineRoute({
  method: "GET",
  path: "/v1/health",
  auth: "none",
  summary: "Per-agent liveness",
  handler: ({ agent }) => json({ ok: true, slug: agent.slug, name: agent.project.name }),
});

export const sessionCost = defineRoute({
  method: "GET",
  path: "/v1/session/:sessionId/cost",
  auth: "agent",
  summary: "Token usage and estimated cost per turn; with budgets, usage against each limit",
  async handler(context) {
    const sessionId = sessionParam(context);
    const record = await context.agent.sessions.readable(sessionId, viewer(context));
    const { budgets } = context.agent;
    const [events, , usage] = await Promise.all([context.agent.log.readEvents(sessionId), loadPriceCatalog(), budgets?.report(record)]);
    const report = foldCostReport(sessionId, events, context.agent.project.agent.prices);
    return json({ ...report, ...(usage ? { budgets: usage } : {}) } satisfies SessionCostResponse);
  },
});
