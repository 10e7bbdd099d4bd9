/**
 * A2A test helpers: a host served on loopback, the official SDK's client for one of its agents,
 * and messages in the SDK's shapes.
 */
import { type Client, ClientFactory, ClientFactoryOptions, DefaultAgentCardResolver, JsonRpcTransportFactory, RestTransportFactory } from "@a2a-js/sdk/client";
import { type Message, Role, type StreamResponse, type TaskState } from "@a2a-js/sdk";
import { serveNode, type NodeServer } from "../adapters/node.ts";
import { createHost } from "../src/host/host.ts";
import type { AgentHost, AgentHostOptions } from "../src/host/types.ts";

export interface ServedHost {
  host: AgentHost;
  server: NodeServer;
  url: string;
  close(): Promise<void>;
}

export async function serve(options: AgentHostOptions): Promise<ServedHost> {
  const host = createHost(options);
  const server = await serveNode(host, { port: 0, silent: true });
  return {
    host,
    server,
    url: server.url,
    async close() {
      await host.close();
      await server.close(true);
    },
  };
}

/** The SDK's client, built from the agent card at `agentUrl` as any A2A client would, on the binding asked for. */
export async function clientFor(agentUrl: string, headers: Record<string, string> = {}, binding: "JSONRPC" | "HTTP+JSON" = "JSONRPC"): Promise<Client> {
  const fetchImpl: typeof fetch = (input, init) => fetch(input, { ...init, headers: { ...(init?.headers as Record<string, string>), ...headers } });
  const factory = new ClientFactory({
    ...ClientFactoryOptions.default,
    transports: [new JsonRpcTransportFactory({ fetchImpl }), new RestTransportFactory({ fetchImpl })],
    preferredTransports: [binding],
    cardResolver: new DefaultAgentCardResolver({ fetchImpl }),
  });
  return factory.createFromUrl(`${agentUrl}/`);
}

let counter = 0;

/** A user message with one text part, optionally in a context or answering a task. */
export function userMessage(text: string, ids: { contextId?: string; taskId?: string } = {}): Message {
  return {
    messageId: `m-${++counter}`,
    contextId: ids.contextId ?? "",
    taskId: ids.taskId ?? "",
    role: Role.ROLE_USER,
    parts: [{ content: { $case: "text", value: text }, metadata: undefined, filename: "", mediaType: "" }],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

/** The text of a message's parts. */
export function textOf(message: Message | undefined): string {
  return (message?.parts ?? []).map((part) => (part.content?.$case === "text" ? part.content.value : "")).join("");
}

/** A raw JSON-RPC call (for what the SDK would never send). */
export async function rpc(endpoint: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(endpoint, {
    method: "POST",
    headers: { "content-type": "application/json", "a2a-version": "1.0", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** A stream frame's task state (the Task's or a status update's), or undefined for an artifact update. */
export function stateOf(frame: StreamResponse): TaskState | undefined {
  const payload = frame.payload;
  if (payload?.$case === "task" || payload?.$case === "statusUpdate") return payload.value.status?.state;
  return undefined;
}
