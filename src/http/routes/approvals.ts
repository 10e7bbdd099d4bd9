/** Approval routes: list parked calls, resolve one (docs/guide/http-api.md "Sessions", docs/design/tools.md "Approvals"). */
import { validate } from "../../_validate.ts";
import { approvalBody } from "../../schemas/tools.ts";
import type { ApprovalDecisionResponse } from "../../events/responses.ts";
import { readJsonBody } from "../body.ts";
import { json } from "../responses.ts";
import { defineRoute } from "../route.ts";
import { sessionParam, viewer } from "./sessions.ts";

export const listApprovals = defineRoute({
  method: "GET",
  path: "/v1/session/:sessionId/approvals",
  auth: "agent",
  summary: "Tool calls parked for approval",
  async handler(context) {
    const sessionId = sessionParam(context);
    await context.agent.sessions.readable(sessionId, viewer(context));
    return json({ approvals: await context.agent.approvals.list(sessionId) });
  },
});

export const resolveApproval = defineRoute({
  method: "POST",
  path: "/v1/session/:sessionId/approvals/:callId",
  auth: "agent",
  summary: "Approve or deny a parked tool call",
  async handler(context) {
    const sessionId = sessionParam(context);
    const callId = context.params["callId"] ?? "";
    const body = await validate(await readJsonBody(context.request, context.host.maxBodyBytes), approvalBody);
    await context.agent.sessions.owned(sessionId, context.auth);
    await context.agent.approvals.resolve(sessionId, callId, body.decision);
    return json({ ok: true, sessionId, callId, decision: body.decision } satisfies ApprovalDecisionResponse);
  },
});

