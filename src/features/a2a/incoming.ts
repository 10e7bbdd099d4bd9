/**
 * An incoming A2A message as the session takes it: its text (text parts, then data parts as
 * JSON), and, for a task waiting for approval, the decision it carries (docs/guide/a2a.md
 * "Approvals").
 * @module
 */
import { invalidParams } from "./errors.ts";

/** The members of `SendMessageRequest.message` this host reads, checked. */
export interface IncomingMessage {
  /** The text the session receives: text parts, data parts as JSON, then a line per file. */
  text: string;
  /** The message id the client gave: file attachments are keyed by it. */
  messageId: string;
  contextId?: string;
  taskId?: string;
  /** The data parts, as sent. */
  data: unknown[];
  /** The file parts (docs/design/a2a-files.md). */
  files: IncomingFile[];
}

/** A file part: its bytes (`raw`, base64 on the wire) or where it is (`url`, never fetched). */
export interface IncomingFile {
  /** Unique within the message: `<position>-<filename>`. */
  name: string;
  mediaType: string;
  bytes?: Uint8Array<ArrayBuffer>;
  url?: string;
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
  const files: IncomingFile[] = [];
  for (const [index, part] of parts.entries()) {
    if (!isObject(part)) throw invalidParams(`params.message.parts[${index}] must be an object`);
    if (typeof part["text"] === "string") texts.push(part["text"]);
    else if ("data" in part) data.push(part["data"]);
    else if ("raw" in part || "url" in part) files.push(readFile(part, index));
    else throw invalidParams(`params.message.parts[${index}] has no text, data, raw or url`);
  }
  if (files.length > MAX_FILES) throw invalidParams(`params.message carries at most ${MAX_FILES} files`);
  const messageId = value["messageId"];
  const text = [...texts, ...data.map((item) => JSON.stringify(item)), ...files.map((file) => fileLine(messageId, file))].join("\n");
  if (text.trim() === "") throw invalidParams("params.message has no content");
  if (text.length > MAX_TEXT) throw invalidParams(`params.message is longer than ${MAX_TEXT} characters`);
  return {
    text,
    messageId,
    data,
    files,
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

const MAX_FILES = 20;

/** A 1.0 file part: `{raw | url, filename?, mediaType?}`. */
function readFile(part: Record<string, unknown>, index: number): IncomingFile {
  const where = `params.message.parts[${index}]`;
  const { raw, url, filename, mediaType } = part;
  if (filename !== undefined && typeof filename !== "string") throw invalidParams(`${where}.filename must be a string`);
  if (mediaType !== undefined && (typeof mediaType !== "string" || !/^[\w.+-]+\/[\w.+-]+$/.test(mediaType))) throw invalidParams(`${where}.mediaType must be a media type such as text/plain`);
  const base = (typeof filename === "string" ? filename : "").replace(/[^\w.-]+/g, "_").replace(/^\.+/, "").slice(0, 100) || "file";
  const file = { name: `${index}-${base}`, mediaType: typeof mediaType === "string" ? mediaType : "application/octet-stream" };
  if (raw !== undefined) {
    if (url !== undefined) throw invalidParams(`${where} has both raw and url`);
    if (typeof raw !== "string" || !/^[A-Za-z0-9+/_-]*={0,2}$/.test(raw)) throw invalidParams(`${where}.raw must be the file's bytes in base64`);
    return { ...file, bytes: decodeBase64(raw) };
  }
  if (typeof url !== "string") throw invalidParams(`${where}.url must be a string`);
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw invalidParams(`${where}.url is not an absolute URL`);
  }
  if (parsed.protocol !== "https:" && parsed.protocol !== "http:") throw invalidParams(`${where}.url must be http or https`);
  return { ...file, url: parsed.href };
}

/** How the agent reads of a file in the message text. */
function fileLine(messageId: string, file: IncomingFile): string {
  const artifact = `artifact kind "attachment" key ${JSON.stringify(attachmentKey(messageId, file))}`;
  if (file.url !== undefined) return `[attached file ${file.name} (${file.mediaType}) at ${file.url}; ${artifact}]`;
  const workspace = textOf(file) === undefined ? "" : `, in the workspace at ${attachmentPath(file)}`;
  return `[attached file ${file.name} (${file.mediaType}, ${file.bytes!.length} bytes)${workspace}; ${artifact}]`;
}

/** Where a text file is written in the session's workspace. */
export const attachmentPath = (file: Pick<IncomingFile, "name">): string => `attachments/${file.name}`;

/** A file's text, when it is text (a textual media type and valid UTF-8); undefined for bytes. */
export function textOf(file: IncomingFile): string | undefined {
  if (!file.bytes || !/^text\/|[/+](json|xml|yaml|csv|markdown)$|^application\/(javascript|x-ndjson)$/.test(file.mediaType)) return undefined;
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(file.bytes);
  } catch {
    return undefined;
  }
}

/** The artifact key of a message's file: unique per message and position. */
export const attachmentKey = (messageId: string, file: Pick<IncomingFile, "name">): string => `${messageId}/${file.name}`;

function decodeBase64(text: string): Uint8Array<ArrayBuffer> {
  const binary = atob(text.replaceAll("-", "+").replaceAll("_", "/"));
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

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
