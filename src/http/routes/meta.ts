/** Per-agent liveness and the cost report. */
import { loadPriceCatalog } from "../../features/cost/prices.ts";
import { foldCostReport } from "../../features/cost/report.ts";
import { json } from "../../base/responses.ts";
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
  summary: "Token usage and estimated cost per turn",
  async handler(context) {
    const sessionId = sessionParam(context);
    await context.agent.sessions.readable(sessionId, viewer(context));
    const [events] = await Promise.all([context.agent.log.readEvents(sessionId), loadPriceCatalog()]);
    return json(foldCostReport(sessionId, events, context.agent.project.agent.prices));
  },
});
