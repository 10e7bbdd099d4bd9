/** Approval routes: list parked calls, resolve one (docs/guide/http-api.md "Sessions", docs/design/tools.md "Approvals"). */
import { validate } from "../../base/validate.ts";
import type { AgentRuntime } from "../agent.ts";
import type { Decision } from "../../engine/approvals/approval-store.ts";
import { approvalBody } from "../schemas/tools.ts";
import type { ApprovalDecisionResponse } from "../response-types.ts";
import { readJsonBody } from "../../base/body.ts";
import { json } from "../../base/responses.ts";
import type { AuthContext } from "../../base/auth.ts";
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
  bodySchema: approvalBody,
  async handler(context) {
    const sessionId = sessionParam(context);
    const callId = context.params["callId"] ?? "";
    const body = await validate(await readJsonBody(context.request, context.host.maxBodyBytes), approvalBody);
    await decideApproval(context.agent, context.auth, sessionId, callId, body.decision);
    return json({ ok: true, sessionId, callId, decision: body.decision } satisfies ApprovalDecisionResponse);
  },
});


/**
 * The one way a parked call is decided over HTTP: by the session's owner, exactly once (404 for a
 * call that is not parked, 409 for one already decided). The approval route and `/v1/chat`'s
 * tool approval responses both decide through it.
 */
export async function decideApproval(agent: AgentRuntime, auth: AuthContext, sessionId: string, callId: string, decision: Decision): Promise<void> {
  await agent.sessions.owned(sessionId, auth);
  // Throws approval_not_found (404) or approval_already_resolved (409) itself.
  await agent.approvals.resolve(sessionId, callId, decision);
}
