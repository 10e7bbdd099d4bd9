/**
 * `GET /v1/abs` (docs/design/mcp-and-discovery.md "Discovery and meta"): live A/B metrics. Arm
 * totals cover every enrolled session; the per-session assignments list only the sessions the
 * caller may read.
 * @module
 */
import { json } from "../../base/responses.ts";
import { defineRoute } from "../route.ts";
import { viewer } from "./sessions.ts";

export const abs = defineRoute({
  method: "GET",
  path: "/v1/abs",
  auth: "agent",
  summary: "A/B experiments: arm totals, per-session assignments and metrics config",
  async handler(context) {
    const { auth, wide } = viewer(context);
    return json(await context.agent.experiments.report((record) => wide || record.owner.principalId === auth.principalId));
  },
});
