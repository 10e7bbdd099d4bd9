/**
 * `a2aAgent({url})`: a tool through which an agent calls another A2A agent (docs/guide/a2a.md
 * "Calling another agent"). It reads the peer's agent card, sends the model's message over the
 * card's JSON-RPC interface and answers the peer's reply, its task state and the context id that
 * continues the conversation.
 * @module
 */
import { randomId } from "../../base/ids.ts";
import type { ToolContext, ToolDefinition } from "../../base/definitions/tools.ts";
import { isObject } from "./incoming.ts";

export interface A2AAgentToolOptions {
  /** The peer agent's URL (its card is `<url>/.well-known/agent-card.json`), or the card's own URL. */
  url: string;
  /** What the model reads about the peer. @default a sentence naming `url` and how to continue */
  description?: string;
  /** Headers sent to the peer (for example `authorization` for a peer under `--bearer-token`). */
  headers?: Record<string, string>;
  /** How long one call waits for the peer's answer. @default 120000 */
  timeoutMs?: number;
}

/** What the tool answers the model. */
export interface A2AAgentToolResult {
  /** The peer's task state (`completed`, `failed`, `canceled`, `input-required`, ...). */
  state: string;
  /** The peer's reply: its status message's text parts. */
  reply: string;
  /** Pass it back as `contextId` to continue the same conversation with the peer. */
  contextId: string;
  taskId: string;
}

interface Input {
  message: string;
  contextId?: string;
}

/**
 * @example
 * ```ts
 * // bot/tools/ask_researcher.ts
 * import { a2aAgent } from "agent-serve/tools";
 * export default a2aAgent({ url: "http://127.0.0.1:3000/researcher", description: "Ask the researcher" });
 * ```
 */
export function a2aAgent(options: A2AAgentToolOptions): ToolDefinition<Input> {
  let endpoint: Promise<string> | undefined;
  const resolve = (signal: AbortSignal): Promise<string> =>
    (endpoint ??= readEndpoint(options, signal).catch((error: unknown) => {
      // A peer that was down is asked again on the next call.
      endpoint = undefined;
      throw error;
    }));
  return {
    description: options.description ?? `Send a message to the A2A agent at ${options.url} and get its reply; pass the contextId it returns to continue that conversation.`,
    inputSchema: {
      type: "object",
      properties: {
        message: { type: "string", description: "The message for the other agent" },
        contextId: { type: "string", description: "The contextId of an earlier answer, to continue that conversation" },
      },
      required: ["message"],
      additionalProperties: false,
    },
    async execute(input: Input, context: ToolContext): Promise<A2AAgentToolResult> {
      if (!isObject(input) || typeof input.message !== "string" || input.message === "") throw new Error("message is required");
      const signal = AbortSignal.any([context.signal, AbortSignal.timeout(options.timeoutMs ?? 120_000)]);
      const url = await resolve(signal);
      const message = {
        messageId: `msg_${randomId(16)}`,
        role: "ROLE_USER",
        parts: [{ text: input.message }],
        ...(typeof input.contextId === "string" && input.contextId !== "" ? { contextId: input.contextId } : {}),
      };
      const response = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json", "a2a-version": "1.0", ...options.headers },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "SendMessage", params: { message } }),
        signal,
      });
      const answer = (await response.json().catch(() => undefined)) as { result?: { task?: WireTask }; error?: { code: number; message: string } } | undefined;
      if (!answer || (!answer.result && !answer.error)) throw new Error(`the agent at ${options.url} answered ${response.status} without a JSON-RPC response`);
      if (answer.error) throw new Error(`the agent at ${options.url} refused: ${answer.error.message} (${answer.error.code})`);
      const task = answer.result?.task;
      if (!task) throw new Error(`the agent at ${options.url} answered no task`);
      return {
        state: task.status.state.replace(/^TASK_STATE_/, "").toLowerCase().replace("_", "-"),
        reply: (task.status.message?.parts ?? []).flatMap((part) => (typeof part.text === "string" ? [part.text] : [])).join("\n"),
        contextId: task.contextId,
        taskId: task.id,
      };
    },
  };
}

// --- internals ---

interface WireTask {
  id: string;
  contextId: string;
  status: { state: string; message?: { parts?: Array<{ text?: string }> } };
}

/** The JSON-RPC endpoint the peer's card names. */
async function readEndpoint(options: A2AAgentToolOptions, signal: AbortSignal): Promise<string> {
  const cardUrl = options.url.endsWith(".json") ? options.url : `${options.url.replace(/\/+$/, "")}/.well-known/agent-card.json`;
  const response = await fetch(cardUrl, { headers: { "a2a-version": "1.0", ...options.headers }, signal });
  if (!response.ok) throw new Error(`no agent card at ${cardUrl} (${response.status})`);
  const card = (await response.json()) as { supportedInterfaces?: Array<{ url?: string; protocolBinding?: string }> };
  const jsonRpc = card.supportedInterfaces?.find((entry) => entry.protocolBinding?.toUpperCase() === "JSONRPC" && typeof entry.url === "string");
  if (!jsonRpc?.url) throw new Error(`the agent card at ${cardUrl} offers no JSON-RPC interface`);
  return jsonRpc.url;
}
