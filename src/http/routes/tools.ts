/**
 * `POST /v1/tools/:toolName`: a server tool called directly, with no model turn
 * (docs/design/tools.md "Direct calls", rules 1-7).
 * @module
 */
import { validate } from "../../base/validate.ts";
import { toolCallBody } from "../schemas/tools.ts";
import { callServerTool, findServerTool } from "../../engine/direct-calls/direct-call.ts";
import { readJsonBody } from "../../base/body.ts";
import { json } from "../../base/responses.ts";
import { defineRoute } from "../route.ts";

export const callTool = defineRoute({
  method: "POST",
  path: "/v1/tools/:toolName",
  auth: "agent",
  summary: "Call a server tool directly (optionally inside a session)",
  bodySchema: toolCallBody,
  async handler(context) {
    // Looked up before the body is read: an unknown tool is 404 whatever the body says.
    const tool = findServerTool(context.agent, context.params["toolName"] ?? "");
    const body = await validate(await readJsonBody(context.request, context.host.maxBodyBytes), toolCallBody);
    const outcome = await callServerTool(context.agent, tool, {
      input: body.input,
      ...(body.sessionId === undefined ? {} : { sessionId: body.sessionId }),
      auth: context.auth,
      signal: context.request.signal,
    });
    return json(outcome);
  },
});
