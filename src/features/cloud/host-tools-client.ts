/**
 * The runner's side of the host's server tools (docs/design/cloud-runtime.md "Server tools over
 * MCP"): one stateless MCP `tools/call` POST per call to the host's `/v1/mcp/tools`, with the
 * turn's credential, the model's call id and the sequence number of the last event line sent, so
 * the host runs the call after that event is written.
 * @module
 */
import type { JsonValue } from "../../base/ports/model.ts";
import type { ToolOutcome } from "../../base/definitions/tools.ts";
import { errorMessage } from "../../base/errors.ts";
import { CALL_ID_HEADER, SEQ_HEADER } from "./protocol.ts";

/** Where the exact tool output travels beside the MCP content (the host's cloud tools set it). */
export const OUTPUT_META = "agent-serve/output";

export interface HostToolCall {
  url: string;
  /** Read at each attempt: a host that restarts and reattaches hands the turn a new one. */
  credential: () => string;
  toolName: string;
  toolCallId: string;
  input: unknown;
  /** The last event line this turn sent before the call. */
  seq: number;
  signal: AbortSignal;
  /** How long to keep trying while the host is unreachable or restarting. @default 120000 */
  retryForMs?: number;
}

/** Pause between attempts while the host is away. */
const RETRY_PAUSE_MS = 500;

/**
 * Calls the tool; while the host is unreachable, or refuses the credential (a restarted host
 * that has not reattached yet), tries again until `retryForMs` has passed. The same call id
 * finds a parked approval the host stored before it went away.
 */
export async function callHostTool(call: HostToolCall): Promise<ToolOutcome> {
  const deadline = Date.now() + (call.retryForMs ?? 120_000);
  for (;;) {
    const outcome = await attempt(call);
    if (!("retry" in outcome)) return outcome;
    if (Date.now() > deadline) return { output: outcome.retry, isError: true };
    await pause(RETRY_PAUSE_MS, call.signal);
  }
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => {
      clearTimeout(timer);
      reject(signal.reason);
    }, { once: true });
  });
}

async function attempt(call: HostToolCall): Promise<ToolOutcome | { retry: string }> {
  let response: Response;
  try {
    response = await fetch(call.url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        authorization: `Bearer ${call.credential()}`,
        [CALL_ID_HEADER]: call.toolCallId,
        [SEQ_HEADER]: String(call.seq),
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: call.toolName, arguments: call.input ?? {} } }),
      signal: call.signal,
    });
  } catch (error) {
    if (call.signal.aborted) throw error;
    return { retry: `the host's server tools are unreachable: ${errorMessage(error)}` };
  }
  const text = await response.text().catch((error: unknown) => {
    if (call.signal.aborted) throw error;
    return undefined;
  });
  if (text === undefined) return { retry: "the host went away during the call" };
  if (response.status === 401 || response.status === 502 || response.status === 503) return { retry: `the host refused the tool call (HTTP ${response.status}): ${text.slice(0, 300)}` };
  if (!response.ok) return { output: `the host refused the tool call (HTTP ${response.status}): ${text.slice(0, 300)}`, isError: true };
  const reply = parseReply(text);
  if (!reply) return { output: "the host's tool endpoint answered something that is not MCP", isError: true };
  if (reply.error) return { output: reply.error.message ?? "tool call failed", isError: true };
  const result = reply.result ?? {};
  const isError = result.isError === true;
  const meta = result._meta?.[OUTPUT_META];
  if (meta !== undefined) return { output: meta, isError };
  if (result.structuredContent !== undefined) return { output: result.structuredContent, isError };
  const parts = (result.content ?? []).filter((part) => part.type === "text").map((part) => part.text ?? "");
  return { output: parts.join("\n"), isError };
}

interface RpcReply {
  result?: { isError?: boolean; content?: Array<{ type: string; text?: string }>; structuredContent?: JsonValue; _meta?: Record<string, JsonValue> };
  error?: { message?: string };
}

/** A JSON body, or the last `data:` line of an SSE body. */
function parseReply(text: string): RpcReply | undefined {
  const body = text.trimStart().startsWith("{") ? text : text.split("\n").filter((line) => line.startsWith("data:")).map((line) => line.slice(5)).pop();
  if (body === undefined) return undefined;
  try {
    return JSON.parse(body) as RpcReply;
  } catch {
    return undefined;
  }
}
