/**
 * Checks loaded tool and hook definitions; problems become diagnostics with the file they are
 * about, so `validate` and `serve` can print every one of them.
 * @module
 */
import { HOOK_EVENT_NAMES } from "../../base/events/hook-event-names.ts";
import { didYouMean, unknownKeyDiagnostics } from "../project/unknown-keys.ts";
import type { Diagnostic } from "../../base/definitions/project.ts";
import { canDescribeSchema, isStandardSchema, jsonSchemaProblem } from "./schema.ts";

/** The members of a tool definition (docs/guide/agent-projects.md). */
const TOOL_KEYS = ["description", "inputSchema", "outputSchema", "execution", "script", "needsApproval", "execute", "effect", "dryRunResult", "idempotent"];

/** Model providers accept tool names of this shape (the file name is the tool name). */
export const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;

export interface ValidateDefinitionsOptions {
  /** Project-relative file of each definition, by name, for the diagnostics. */
  files?: Record<string, string>;
}

/** Diagnostics for `tools` (name to definition, as loaded: shapes are not trusted). */
export function validateTools(tools: Record<string, unknown>, options: ValidateDefinitionsOptions = {}): Diagnostic[] {
  const diagnostics: Diagnostic[] = [];
  for (const [name, def] of Object.entries(tools)) {
    const file = Object.hasOwn(options.files ?? {}, name) ? options.files?.[name] : undefined;
    const report = (severity: Diagnostic["severity"], code: string, message: string): void => {
      diagnostics.push({ severity, code, message: `tool ${name}: ${message}`, ...(file === undefined ? {} : { file }) });
    };
    if (!TOOL_NAME.test(name)) {
      report("error", "invalid_tool_name", "tool names are 1 to 64 letters, digits, _ or - (the file name is the tool name)");
    }
    if (!isRecord(def)) {
      report("error", "invalid_tool", "the default export must be defineTool({...}) (an object)");
      continue;
    }
    checkTool(def, report);
    diagnostics.push(...unknownKeyDiagnostics(def, TOOL_KEYS, `tool ${name}`, file));
  }
  return diagnostics;
}

/** Diagnostics for `hooks` (name to definition): each needs an `events` object of functions. */
export function validateHooks(hooks: Record<string, unknown>, options: ValidateDefinitionsOptions = {}): Diagnostic[] {
  const diagnostics: Diagnostic[] = [];
  for (const [name, def] of Object.entries(hooks)) {
    const file = Object.hasOwn(options.files ?? {}, name) ? options.files?.[name] : undefined;
    const report = (code: string, message: string): void => {
      diagnostics.push({ severity: "error", code, message: `hook ${name}: ${message}`, ...(file === undefined ? {} : { file }) });
    };
    const events = isRecord(def) ? def.events : undefined;
    if (!isRecord(events)) {
      report("invalid_hook", "the default export must be defineHook({ events: {...} }) with an events object");
      continue;
    }
    if (isRecord(def)) diagnostics.push(...unknownKeyDiagnostics(def, ["events"], `hook ${name}`, file));
    for (const [type, handler] of Object.entries(events)) {
      if (typeof handler !== "function") report("invalid_hook_handler", `events[${JSON.stringify(type)}] must be a function`);
      if (!HOOK_EVENT_NAMES.includes(type)) {
        const suggestion = didYouMean(type, HOOK_EVENT_NAMES);
        diagnostics.push({
          severity: "warning",
          code: "unknown_hook_event",
          message: `hook ${name}: no event is named ${JSON.stringify(type)}${suggestion ? ` (did you mean "${suggestion}"?)` : ""}; the handler never runs`,
          ...(file === undefined ? {} : { file }),
        });
      }
    }
  }
  return diagnostics;
}

// --- internals ---

type Report = (severity: Diagnostic["severity"], code: string, message: string) => void;

function checkTool(def: Record<string, unknown>, report: Report): void {
  if (typeof def.description !== "string" || def.description.trim() === "") {
    report("error", "missing_tool_description", "a description is required (the model reads it to decide when to call the tool)");
  }
  const execution = def.execution ?? "server";
  if (execution !== "server" && execution !== "agent") {
    report("error", "invalid_tool_execution", `execution must be "server" or "agent", not ${JSON.stringify(execution)}`);
    return;
  }
  const { needsApproval, inputSchema } = def;
  if (needsApproval !== undefined && typeof needsApproval !== "boolean" && typeof needsApproval !== "function") {
    report("error", "invalid_tool_needs_approval", "needsApproval must be a boolean or a function of the validated input");
  }
  const inputProblem = schemaProblem(inputSchema);
  if (inputProblem) {
    report("error", "invalid_tool_input_schema", `inputSchema ${inputProblem}`);
  } else if (!canDescribeSchema(inputSchema)) {
    report("warning", "tool_schema_not_describable", "inputSchema cannot be converted to JSON Schema; the model sees an open object (input is still validated)");
  }
  const outputProblem = schemaProblem(def.outputSchema);
  if (outputProblem) report("error", "invalid_tool_output_schema", `outputSchema ${outputProblem}`);
  if (def.effect !== undefined && def.effect !== "read" && def.effect !== "write") {
    report("error", "invalid_tool_effect", `effect must be "read" or "write", not ${JSON.stringify(def.effect)}`);
  }
  if (def.idempotent !== undefined && typeof def.idempotent !== "boolean") {
    report("error", "invalid_tool_idempotent", `idempotent must be true or false, not ${JSON.stringify(def.idempotent)}`);
  }
  if (def.dryRunResult !== undefined && def.effect !== "write") {
    report("warning", "tool_dry_run_unused", 'dryRunResult is only used for effect: "write" tools (eval sessions dry-run them)');
  }
  if (execution === "agent") {
    if (typeof def.script !== "string" || def.script.trim() === "") {
      report("error", "missing_tool_script", 'execution "agent" needs a script (a shell script: JSON input on stdin, the result on stdout)');
    }
    if (needsApproval !== undefined && needsApproval !== false) {
      report("warning", "agent_tool_approval_ignored", "needsApproval is ignored: approvals exist for server tools only");
    }
    if (def.execute !== undefined) report("warning", "agent_tool_execute_ignored", "execute is ignored: an agent tool runs its script");
  } else if (typeof def.execute !== "function") {
    report("error", "missing_tool_execute", 'a server tool needs an execute function (or execution: "agent" with a script)');
  }
}

/** Why `schema` is neither a schema-validator object nor a JSON Schema object, or `undefined`. */
function schemaProblem(schema: unknown): string | undefined {
  if (schema === undefined || isStandardSchema(schema)) return undefined;
  if (!isRecord(schema)) return "must be a schema-validator object (valibot, zod, ...) or a JSON Schema object";
  const problem = jsonSchemaProblem(schema);
  return problem ? `is neither a schema-validator object (valibot, zod, ...) nor a JSON Schema: ${problem}` : undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
