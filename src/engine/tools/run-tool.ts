/**
 * Runs one tool call and normalizes its result (docs/design/tools.md "Tools": a string passes
 * verbatim, a JSON value is serialized, `{content, isError?}` is an envelope; a throw is an error
 * result and the turn goes on).
 * @module
 */
import { randomId } from "../../base/ids.ts";
import type { JsonValue } from "../../base/ports/model.ts";
import type { RuntimePort } from "../../base/ports/runtime.ts";
import { isStandardSchema } from "./schema.ts";
import type { ToolContext, ToolDefinition, ToolResultEnvelope } from "../../base/definitions/tools.ts";

/** A tool call's outcome: `result` is what `action.result.output` and the tool route carry. */
export interface ToolRunResult {
  isError: boolean;
  result: JsonValue;
}

/**
 * Runs a server tool's `execute` with already validated input, or its `dryRunResult` when the
 * call is a dry run (docs/design/tools.md). Never throws. A result that fails the tool's
 * `outputSchema` is an error result.
 */
export async function runServerTool(def: ToolDefinition, input: unknown, context: ToolContext): Promise<ToolRunResult> {
  if (isDryRun(def, context)) {
    try {
      return normalizeToolResult(typeof def.dryRunResult === "function" ? await def.dryRunResult(input) : def.dryRunResult);
    } catch (error) {
      return errorResult(messageOf(error));
    }
  }
  if (typeof def.execute !== "function") return errorResult("this tool has no execute function");
  let value: unknown;
  try {
    value = await def.execute(input, context);
  } catch (error) {
    return errorResult(messageOf(error));
  }
  if (isStandardSchema(def.outputSchema)) {
    const checked = await def.outputSchema["~standard"].validate(value);
    if (checked.issues) {
      const issues = checked.issues.map((issue) => `${issuePath(issue.path)}${issue.message}`).join("; ");
      return errorResult(`the tool result does not match its outputSchema: ${issues}`);
    }
    value = checked.value;
  }
  return normalizeToolResult(value);
}

/** Eval sessions do not let `effect: "write"` tools that declare a `dryRunResult` touch the world. */
export function isDryRun(def: ToolDefinition, context: Pick<ToolContext, "session">): boolean {
  return def.effect === "write" && def.dryRunResult !== undefined && context.session?.purpose === "eval";
}

export interface AgentToolOptions {
  /** Working directory of the script: the session workspace. */
  cwd: string;
  signal: AbortSignal;
  /** Longest the script may run before its process group is killed. */
  timeoutMs: number;
}

/**
 * Runs an agent tool's `script` through the runtime: the input as JSON on stdin, the result from
 * stdout (JSON when it parses, else the trimmed text). Never throws.
 */
export async function runAgentTool(
  def: ToolDefinition,
  input: unknown,
  runtime: RuntimePort,
  options: AgentToolOptions,
): Promise<ToolRunResult> {
  if (typeof def.script !== "string" || def.script.trim() === "") return errorResult("this agent tool has no script");
  if (!runtime.runScript) return errorResult("agent tools cannot run here: this runtime cannot run scripts");
  let run;
  try {
    run = await runtime.runScript(def.script, {
      cwd: options.cwd,
      stdin: JSON.stringify(input === undefined ? {} : input),
      timeoutMs: options.timeoutMs,
      signal: options.signal,
    });
  } catch (error) {
    return errorResult(`the script could not run: ${messageOf(error)}`);
  }
  const stdout = run.stdout.trim();
  if (run.killed) {
    const why = options.signal.aborted ? "the script was stopped" : `the script timed out after ${options.timeoutMs} ms`;
    return errorResult(joinOutput(why, run.stderr.trim() || stdout));
  }
  if (run.exitCode !== 0) return errorResult(joinOutput(`the script exited with code ${run.exitCode}`, run.stderr.trim() || stdout));
  return normalizeToolResult(parseOutput(stdout));
}

/** The `callId` of a direct call over `POST /v1/tools/:toolName` (docs/design/tools.md "Direct calls": `tool_<toolName>_<id>`). */
export function toolCallIdForDirectCall(toolName: string): string {
  return `tool_${toolName}_${randomId(16)}`;
}

/**
 * A tool's return value as a result: strings verbatim, envelopes with their `isError`, anything
 * else as JSON (`undefined` is `null`; dates, bigints and other non-JSON values serialized).
 */
export function normalizeToolResult(value: unknown): ToolRunResult {
  if (typeof value === "string") return { isError: false, result: value };
  let result: JsonValue;
  try {
    result = toJsonValue(value);
  } catch (error) {
    return errorResult(`the tool result is not serializable as JSON: ${messageOf(error)}`);
  }
  if (isEnvelope(result)) return { isError: result.isError === true, result };
  return { isError: false, result };
}

/** `{content: [{type: "text", text}]}` with `isError: true`: the error result form. */
export function errorResult(message: string): ToolRunResult {
  return { isError: true, result: { content: [{ type: "text", text: message }] } };
}

// --- internals ---

function issuePath(path: ReadonlyArray<PropertyKey | { key: PropertyKey }> | undefined): string {
  if (!path || path.length === 0) return "";
  return `${path.map((segment) => String(typeof segment === "object" ? segment.key : segment)).join(".")}: `;
}

/** The JSON form of a value as `JSON.stringify` would write it, bigints as decimal strings. */
function toJsonValue(value: unknown): JsonValue {
  const text = JSON.stringify(value, (_key, member: unknown) => (typeof member === "bigint" ? member.toString() : member));
  // `undefined`, functions and symbols at the top level stringify to nothing.
  return text === undefined ? null : (JSON.parse(text) as JsonValue);
}

/** The envelope form: a `content` array of typed parts and an optional boolean `isError`. */
function isEnvelope(value: JsonValue): value is Extract<JsonValue, Record<string, JsonValue>> & ToolResultEnvelope {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const { content, isError } = value;
  if (!Array.isArray(content)) return false;
  if (isError !== undefined && typeof isError !== "boolean") return false;
  return content.every((part) => typeof part === "object" && part !== null && !Array.isArray(part) && typeof part.type === "string");
}

function parseOutput(stdout: string): unknown {
  if (stdout === "") return "";
  try {
    return JSON.parse(stdout);
  } catch {
    return stdout;
  }
}

function joinOutput(message: string, output: string): string {
  return output ? `${message}: ${output}` : message;
}

function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message || error.name;
  return typeof error === "string" ? error : safeString(error);
}

function safeString(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
