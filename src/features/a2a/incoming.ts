/**
 * An incoming A2A message as the session takes it: its text (text parts, then data parts as
 * JSON), and, for a task waiting for approval, the decision it carries (docs/guide/a2a.md
 * "Approvals").
 * @module
 */
import { A2AError, invalidParams } from "./errors.ts";

/** The members of `SendMessageRequest.message` this host reads, checked. */
export interface IncomingMessage {
  text: string;
  contextId?: string;
  taskId?: string;
  /** The data parts, as sent. */
  data: unknown[];
}

const MAX_TEXT = 200_000;

/** Checks `value` as an A2A 1.0 Message from a user. */
export function readIncoming(value: unknown): IncomingMessage {
  if (!isObject(value)) throw invalidParams("params.message is required (an object)");
  if (typeof value["messageId"] !== "string" || value["messageId"] === "") throw invalidParams("params.message.messageId is required (a non-empty string)");
  const role = value["role"];
  if (role !== undefined && role !== "ROLE_USER" && role !== "user") throw invalidParams('params.message.role must be "ROLE_USER"');
  const parts = value["parts"];
  if (!Array.isArray(parts) || parts.length === 0) throw invalidParams("params.message.parts must be a non-empty array");
  const texts: string[] = [];
  const data: unknown[] = [];
  for (const [index, part] of parts.entries()) {
    if (!isObject(part)) throw invalidParams(`params.message.parts[${index}] must be an object`);
    if (typeof part["text"] === "string") texts.push(part["text"]);
    else if ("data" in part) data.push(part["data"]);
    else if ("raw" in part || "url" in part || "file" in part) {
      throw new A2AError("contentTypeNotSupported", `params.message.parts[${index}]: file parts are not accepted; send text or data parts`);
    } else throw invalidParams(`params.message.parts[${index}] has no text or data`);
  }
  const text = [...texts, ...data.map((item) => JSON.stringify(item))].join("\n");
  if (text.trim() === "") throw invalidParams("params.message has no content");
  if (text.length > MAX_TEXT) throw invalidParams(`params.message is longer than ${MAX_TEXT} characters`);
  return {
    text,
    data,
    ...(optionalId(value, "contextId") === undefined ? {} : { contextId: optionalId(value, "contextId")! }),
    ...(optionalId(value, "taskId") === undefined ? {} : { taskId: optionalId(value, "taskId")! }),
  };
}

/**
 * The decision an answer to an input-required task carries: a data part
 * `{decision: "approve"|"deny", callId?}`, or a text that is one of the words below.
 */
export function readDecision(message: IncomingMessage): { decision: "approve" | "deny"; callId?: string } {
  for (const item of message.data) {
    if (!isObject(item) || (item["decision"] !== "approve" && item["decision"] !== "deny")) continue;
    const callId = item["callId"];
    if (callId !== undefined && typeof callId !== "string") throw invalidParams("a decision's callId must be a string");
    return { decision: item["decision"], ...(callId === undefined ? {} : { callId }) };
  }
  const word = message.text.trim().toLowerCase();
  if (APPROVE.has(word)) return { decision: "approve" };
  if (DENY.has(word)) return { decision: "deny" };
  throw invalidParams('the task waits for an approval: answer "approve" or "deny" (or a data part {"decision": "approve"|"deny", "callId"?})');
}

// --- internals ---

const APPROVE = new Set(["approve", "approved", "yes", "y", "ok"]);
const DENY = new Set(["deny", "denied", "no", "n", "reject"]);

function optionalId(value: Record<string, unknown>, key: string): string | undefined {
  const id = value[key];
  if (id === undefined || id === "") return undefined;
  if (typeof id !== "string") throw invalidParams(`params.message.${key} must be a string`);
  return id;
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
