/**
 * The built-in `scripted` model (docs/guide/getting-started.md "The scripted model"): offline and
 * deterministic. It reads directives from the latest user message, so demos and CI of agents run
 * without a credential.
 * @module
 */
import { abortError, throwIfAborted } from "../../base/abort.ts";
import { createError, errorMessage } from "../../base/errors.ts";
import type {
  ConversationMessage,
  LanguageModelPort,
  ModelStepRequest,
  ModelStreamPart,
  ToolResultOutput,
  Usage,
} from "../../base/ports/model.ts";

export interface ScriptedModelOptions {
  /** Approximate size of each streamed text or reasoning delta, in characters. @default 8 */
  chunkSize?: number;
}

/**
 * Creates the scripted model. Directives, one per line of the latest user message:
 * `/reply <text>`, `/tool <name> <json>`, `/reason <text>`, `/sleep <ms>`, `/fail <message>`;
 * a bare `/reply` answers with the lines below it, up to the next directive; any other line is
 * echoed back as `echo: <text>`.
 * @example
 * const model = createScriptedModel();
 * for await (const part of model.stream({ system: "", messages: [{ role: "user", content: "/reply hi" }], tools: [], signal, params: {} })) {}
 */
export function createScriptedModel(options: ScriptedModelOptions = {}): LanguageModelPort {
  const chunkSize = Math.max(1, Math.floor(options.chunkSize ?? 8));
  return { id: "scripted", stream: (request) => runStep(request, chunkSize) };
}

interface Script {
  replies: string[];
  tools: Array<{ name: string; input: unknown }>;
  reasoning: string[];
  sleepMs: number;
  fail: string | undefined;
  text: string[];
}

async function* runStep(request: ModelStepRequest, chunkSize: number): AsyncGenerator<ModelStreamPart> {
  const { signal } = request;
  throwIfAborted(signal);
  const userIndex = request.messages.findLastIndex((message) => message.role === "user");
  const user = request.messages[userIndex];
  const script = parseScript(user?.role === "user" ? user.content : "");
  if (script.fail !== undefined) throw new Error(script.fail);
  const inputTokens = Math.ceil(promptChars(request) / 4);

  const callsSoFar = countToolCalls(request.messages.slice(userIndex + 1));
  const nextTool = script.tools[callsSoFar];
  if (nextTool) {
    const input = nextTool.input;
    await tick(signal);
    yield { type: "tool-call", toolCallId: `call_${callsSoFar + 1}_${randomSuffix()}`, toolName: nextTool.name, input };
    const usage = makeUsage(inputTokens, JSON.stringify(input).length);
    yield { type: "finish", finishReason: "tool_call", usage };
    return;
  }

  if (script.sleepMs > 0) await sleep(script.sleepMs, signal);
  let outputChars = 0;
  if (script.reasoning.length > 0) {
    const reasoning = script.reasoning.join("\n");
    for (const delta of chunkText(reasoning, chunkSize)) {
      await tick(signal);
      yield { type: "reasoning-delta", delta };
    }
    outputChars += reasoning.length;
    yield { type: "reasoning-end" };
  }
  const answer = answerOf(script);
  for (const delta of chunkText(answer, chunkSize)) {
    await tick(signal);
    yield { type: "text-delta", delta };
  }
  outputChars += answer.length;
  await tick(signal);
  yield { type: "finish", finishReason: "stop", usage: makeUsage(inputTokens, outputChars) };
}

// --- internals ---

/** Splits text into pieces of at most `size` characters, preferring word boundaries. */
function chunkText(text: string, size: number): string[] {
  const chunks: string[] = [];
  let current = "";
  for (const token of text.match(/\S+\s*|\s+/g) ?? []) {
    if (current.length + token.length <= size) {
      current += token;
      continue;
    }
    if (current) chunks.push(current);
    current = "";
    let rest = token;
    while (rest.length > size) {
      chunks.push(rest.slice(0, size));
      rest = rest.slice(size);
    }
    current = rest;
  }
  if (current) chunks.push(current);
  return chunks;
}

const DIRECTIVE = /^\s*\/(reply|tool|reason|sleep|fail)(?:\s+([\s\S]*))?$/;

function parseScript(content: string): Script {
  const script: Script = { replies: [], tools: [], reasoning: [], sleepMs: 0, fail: undefined, text: [] };
  const lines = content.split(/\r?\n/);
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index]!;
    const match = DIRECTIVE.exec(line);
    if (!match) {
      script.text.push(line);
      continue;
    }
    const argument = (match[2] ?? "").trim();
    switch (match[1]) {
      case "reply": {
        if (argument) {
          script.replies.push(argument);
          break;
        }
        const block = readReplyBlock(lines, index + 1);
        script.replies.push(block.text);
        index = block.end - 1;
        break;
      }
      case "reason":
        script.reasoning.push(argument);
        break;
      case "sleep":
        script.sleepMs += parseSleep(argument);
        break;
      case "fail":
        script.fail ??= argument || "scripted failure";
        break;
      default:
        script.tools.push(parseTool(argument));
    }
  }
  return script;
}

/**
 * The answer of a bare `/reply` (docs/guide/getting-started.md "The scripted model"): the lines
 * from `start` up to the next directive line, as written, without blank lines at either end. A
 * directive inside a ``` or ~~~ fence belongs to the answer, so a reply can show a script. Only a
 * bare `/reply` reads on: `/reply <text>` stays one line, because the host may append text below a
 * one-line prompt (a reminder's standing instruction) that must not become part of the answer.
 */
function readReplyBlock(lines: readonly string[], start: number): { text: string; end: number } {
  let fence: string | undefined;
  let end = start;
  for (; end < lines.length; end++) {
    const line = lines[end]!;
    if (fence === undefined && DIRECTIVE.test(line)) break;
    const marker = FENCE.exec(line);
    if (!marker) continue;
    const [, run = "", info = ""] = marker;
    if (fence === undefined) fence = run;
    else if (info === "" && run[0] === fence[0] && run.length >= fence.length) fence = undefined;
  }
  const block = lines.slice(start, end);
  while (block.length > 0 && block[0]!.trim() === "") block.shift();
  while (block.length > 0 && block.at(-1)!.trim() === "") block.pop();
  return { text: block.join("\n"), end };
}

/** A Markdown code fence line: its marker, and what follows it (an info string only when opening). */
const FENCE = /^ {0,3}(`{3,}|~{3,})\s*(.*)$/;

function parseTool(argument: string): { name: string; input: unknown } {
  const space = argument.search(/\s/);
  const name = space === -1 ? argument : argument.slice(0, space);
  const json = space === -1 ? "" : argument.slice(space).trim();
  if (!name) throw createError("scripted", "`/tool` needs a tool name: /tool <name> <json>");
  if (!json) return { name, input: {} };
  try {
    return { name, input: JSON.parse(json) as unknown };
  } catch (error) {
    const reason = errorMessage(error);
    throw createError("scripted", `/tool ${name}: input is not valid JSON (${reason}): ${json}`, error);
  }
}

function parseSleep(argument: string): number {
  const ms = Number(argument);
  if (!Number.isFinite(ms) || ms < 0) throw createError("scripted", `/sleep needs milliseconds, got "${argument}"`);
  return ms;
}

function answerOf(script: Script): string {
  if (script.replies.length > 0) return script.replies.join("\n");
  if (script.tools.length > 0) return "done";
  const text = script.text.join("\n").trim();
  return text ? `echo: ${text}` : "done";
}

function countToolCalls(messages: ConversationMessage[]): number {
  let count = 0;
  for (const message of messages) {
    if (message.role !== "assistant") continue;
    for (const part of message.content) if (part.type === "tool-call") count++;
  }
  return count;
}

/** Prompt characters: system plus every message's text, with tool inputs and outputs as JSON. */
function promptChars(request: ModelStepRequest): number {
  let chars = request.system.length;
  for (const message of request.messages) {
    if (message.role === "user") {
      chars += message.content.length;
    } else if (message.role === "assistant") {
      for (const part of message.content) {
        chars += part.type === "tool-call" ? JSON.stringify(part.input ?? null).length : part.text.length;
      }
    } else {
      for (const part of message.content) chars += toolOutputChars(part.output);
    }
  }
  return chars;
}

function toolOutputChars(output: ToolResultOutput): number {
  return typeof output.value === "string" ? output.value.length : JSON.stringify(output.value).length;
}

function makeUsage(inputTokens: number, outputCharCount: number): Usage {
  return { inputTokens, outputTokens: Math.ceil(outputCharCount / 4), cacheReadTokens: 0, cacheWriteTokens: 0 };
}

function randomSuffix(): string {
  return crypto.randomUUID().slice(0, 8);
}

/**
 * A macrotask boundary, so an abort from another task can land between two parts. `setImmediate`
 * where there is one: `setTimeout(0)` waits at least 1 ms on Node, which is not "at once"
 * (docs/design/speed.md).
 */
async function tick(signal: AbortSignal): Promise<void> {
  await new Promise((resolve) => nextMacrotask(resolve));
  throwIfAborted(signal);
}

function nextMacrotask(fn: (value?: unknown) => void): void {
  const immediate = (globalThis as { setImmediate?: (fn: () => void) => unknown }).setImmediate;
  if (immediate) immediate(fn);
  else setTimeout(fn, 0);
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(abortError());
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(abortError());
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}
