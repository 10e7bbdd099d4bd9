/**
 * The host's side of a cloud turn's server tools (docs/design/cloud-runtime.md "Server tools
 * over MCP"): each live cloud turn registers its own tool executor under its session and turn;
 * `/v1/mcp/tools` with that turn's credential runs calls on it, so validation, approvals and the
 * tool context are a local turn's. The turn's end unregisters it, which revokes the credential.
 * @module
 */
import type { ModelToolSpec } from "../../base/ports/model.ts";
import type { ToolExecutor } from "../../engine/turns/tool-executor.ts";
import type { McpTool } from "../mcp/stateless.ts";
import { OUTPUT_META } from "./host-tools-client.ts";
import { type CredentialKey, createCredentialKey } from "./session-credential.ts";

export interface LiveCloudTurn {
  executor: ToolExecutor;
  /** What of the executor the runner may call: the host's own tools, never agent-execution ones. */
  specs: ModelToolSpec[];
  /** Resolves once the turn's event lines up to `seq` are written. */
  written(seq: number): Promise<void>;
  signal: AbortSignal;
}

export interface CloudToolsGate {
  /** The MCP tools a request with `credential` may call, or undefined (refused). */
  tools(credential: string, callId: string | null, seq: number): Promise<McpTool[] | undefined>;
}

export interface CloudTurnRegistry extends CloudToolsGate {
  /** Registers the turn; returns its credential and the function that revokes it. */
  register(ids: { sessionId: string; turnId: string; agent: string }, turn: LiveCloudTurn): Promise<{ credential: string; revoke(): void }>;
}

export function createCloudTurnRegistry(key: CredentialKey = createCredentialKey()): CloudTurnRegistry {
  const live = new Map<string, LiveCloudTurn>();
  const id = (sessionId: string, turnId: string): string => `${sessionId}/${turnId}`;
  return {
    async register(ids, turn) {
      live.set(id(ids.sessionId, ids.turnId), turn);
      const credential = await key.mint(ids);
      return { credential, revoke: () => live.delete(id(ids.sessionId, ids.turnId)) };
    },
    async tools(credential, callId, seq) {
      const claims = await key.verify(credential);
      const turn = claims && live.get(id(claims.sessionId, claims.turnId));
      if (!turn) return undefined;
      return turn.specs.map((spec) => asMcpTool(spec, turn, callId, seq));
    },
  };
}

function asMcpTool(spec: ModelToolSpec, turn: LiveCloudTurn, callId: string | null, seq: number): McpTool {
  return {
    name: spec.name,
    description: spec.description,
    inputSchema: { type: "object", ...spec.inputSchema } as McpTool["inputSchema"],
    async call(args, signal) {
      // The runner's `actions.requested` for this call is written before the call runs.
      await turn.written(seq);
      const toolCallId = callId ?? `call_${crypto.randomUUID()}`;
      const prepared = await turn.executor.prepare({ toolCallId, toolName: spec.name, input: args });
      const outcome = await turn.executor.execute(prepared, AbortSignal.any([signal, turn.signal]));
      // Loaded on first use: the MCP SDK stays out of start-up (docs/design/cloudflare-build.md).
      const { toolResultToMcp } = await import("../mcp/results.ts");
      return { ...toolResultToMcp(outcome.output, outcome.isError), _meta: { [OUTPUT_META]: outcome.output } };
    },
  };
}
