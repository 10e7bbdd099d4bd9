/**
 * The MCP endpoints (docs/design/mcp-and-discovery.md). Both are stateless Streamable HTTP and
 * carry the protocol in POST only; GET and DELETE get the router's 405 with `Allow: POST`, which
 * the MCP transport spec allows for a server that offers no standalone SSE stream and no session
 * termination.
 *
 * The MCP modules are imported by the first MCP request: the SDK builds its protocol schemas (zod)
 * when evaluated, most of what a Workers isolate's start-up would otherwise spend
 * (docs/design/cloudflare-build.md "Start-up CPU"). With an OAuth verifier, a 401 points at the
 * endpoint's protected-resource metadata (../oauth-resource.ts).
 * @module
 */
import { authenticate } from "../auth-chain.ts";
import { resourceChallenge } from "../oauth-resource.ts";
import { decideApproval } from "./approvals.ts";
import { defineRoute, type HostServices } from "../route.ts";
import { HTTPError } from "../../base/errors.ts";
import { CALL_ID_HEADER, SEQ_HEADER } from "../../features/cloud/protocol.ts";

/** A tool task's runner lease: the host's lease when it sets one, else the tasks' own 10 s (docs/design/mcp-tool-tasks.md "Crash and restart"). */
const taskLease = (host: HostServices): { leaseMs?: number } => (host.leaseTtlMs === undefined ? {} : { leaseMs: host.leaseTtlMs });

export const mcpEndpoint = defineRoute({
  method: "POST",
  path: "/v1/mcp",
  auth: "agent",
  summary: "MCP over streamable HTTP (stateless): tools ask, check and call_tool",
  async handler({ request, agent, auth, wide, host }) {
    const [{ handleMcpRequest }, { agentMcpTools }, { agentMcpTasks }, { toolTasks }] = await Promise.all([
      import("../../features/mcp/stateless.ts"),
      import("../../features/mcp/agent-tools.ts"),
      import("../../features/mcp/tasks.ts"),
      import("../../features/mcp/tool-tasks.ts"),
    ]);
    const context = { agent, auth, wide, closing: host.closing };
    const tools = agentMcpTools(context);
    // `ask` runs as a task from its session's log; the other tools as stored tool tasks.
    const others = toolTasks(
      { storage: agent.storage, auth, closing: host.closing, logger: host.logger, ...taskLease(host), ...(agent.timed.mcpTasks ? { expiry: agent.timed.mcpTasks } : {}) },
      tools.filter((tool) => tool.name !== "ask"),
    );
    return handleMcpRequest(request, {
      name: agent.project.name,
      version: host.version,
      ...(agent.project.description ? { instructions: agent.project.description } : {}),
      tools,
      // A task's parked calls are decided as the approvals route decides them.
      tasks: agentMcpTasks({ ...context, decide: (sessionId, callId, decision) => decideApproval(agent, auth, sessionId, callId, decision) }, others),
      maxBodyBytes: host.maxBodyBytes,
      logger: host.logger,
    });
  },
});

export const mcpToolsEndpoint = defineRoute({
  method: "POST",
  path: "/v1/mcp/tools",
  // Not the agent's chain: the host-level chain of the start-up flags runs in the handler, so an
  // authored channel chain never decides who may call the server tools.
  auth: "none",
  summary: "MCP endpoint exposing each server tool under its own name (host-level auth)",
  async handler({ request, agent, ip, host, url }) {
    // A cloud runner's call carries its turn's credential: that turn's tools, nothing else.
    const bearer = /^Bearer (cst\.\S+)$/.exec(request.headers.get("authorization") ?? "")?.[1];
    if (bearer !== undefined) {
      const seq = Number(request.headers.get(SEQ_HEADER) ?? 0);
      const tools = await agent.cloudTools?.tools(bearer, request.headers.get(CALL_ID_HEADER), Number.isFinite(seq) ? seq : 0);
      if (!tools) throw new HTTPError({ status: 401, code: "unauthorized", message: "the cloud turn credential is not valid (expired, or its turn has ended)" });
      const { handleMcpRequest } = await import("../../features/mcp/stateless.ts");
      return handleMcpRequest(request, { name: `${agent.project.name} tools`, version: host.version, tools, maxBodyBytes: host.maxBodyBytes, logger: host.logger });
    }
    const challenge = host.oauth ? resourceChallenge(url, host.oauth) : undefined;
    const auth = await authenticate(host.hostPolicies, request, ip === undefined ? {} : { ip }, challenge);
    const [{ handleMcpRequest }, { serverToolsAsMcp }, { toolTasks }] = await Promise.all([
      import("../../features/mcp/stateless.ts"),
      import("../../features/mcp/server-tools.ts"),
      import("../../features/mcp/tool-tasks.ts"),
    ]);
    const tools = serverToolsAsMcp(agent, auth);
    return handleMcpRequest(request, {
      name: `${agent.project.name} tools`,
      version: host.version,
      tools,
      tasks: toolTasks({ storage: agent.storage, auth, closing: host.closing, logger: host.logger, ...taskLease(host), ...(agent.timed.mcpTasks ? { expiry: agent.timed.mcpTasks } : {}) }, tools),
      maxBodyBytes: host.maxBodyBytes,
      logger: host.logger,
    });
  },
});
