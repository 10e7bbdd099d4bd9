/**
 * The model-facing specs of the harness tools (docs/design/local-runtime.md "Harness tools") and
 * the checks of their input. The model's input is checked here, in the core, so every runtime
 * receives typed input.
 * @module
 */
import type { ModelToolSpec } from "../../base/ports/model.ts";
import type { HarnessInputs, HarnessToolName } from "../../base/ports/runtime.ts";

/** Longest a `shell` command may ask to run. */
export const MAX_SHELL_TIMEOUT_MS = 600_000;
/** What a `shell` command gets when it does not ask. */
export const DEFAULT_SHELL_TIMEOUT_MS = 120_000;

const str = (description: string): Record<string, unknown> => ({ type: "string", description });
const int = (description: string): Record<string, unknown> => ({ type: "integer", minimum: 0, description });
const object = (properties: Record<string, unknown>, required: string[]): Record<string, unknown> => ({
  type: "object",
  properties,
  required,
  additionalProperties: false,
});

export const WORKSPACE_TOOL_SPECS: Record<HarnessToolName, ModelToolSpec> = {
  shell: {
    name: "shell",
    description:
      "Runs a shell command (sh -c) in the workspace and returns {exitCode, stdout, stderr}. Output is capped; long runs are killed at timeoutMs. Agent tools in .agent-serve/tools/ read their JSON input from stdin.",
    inputSchema: object(
      {
        command: str("The command line."),
        timeoutMs: { ...int(`Kill the command after this many milliseconds (default ${DEFAULT_SHELL_TIMEOUT_MS}, at most ${MAX_SHELL_TIMEOUT_MS}).`), minimum: 1 },
        stdin: str("Text written to the command's standard input."),
      },
      ["command"],
    ),
  },
  read: {
    name: "read",
    description: "Reads a text file of the workspace. offset is the first line (1-based), limit the number of lines.",
    inputSchema: object({ path: str("Workspace-relative path."), offset: { ...int("First line, 1-based."), minimum: 1 }, limit: { ...int("Number of lines."), minimum: 1 } }, ["path"]),
  },
  edit: {
    name: "edit",
    description:
      "Edits a workspace file: replaces the single occurrence of oldText with newText. Without oldText, writes newText as the whole file (creating folders as needed).",
    inputSchema: object({ path: str("Workspace-relative path."), oldText: str("Exact text to replace; it must occur exactly once."), newText: str("Replacement text, or the whole file.") }, ["path", "newText"]),
  },
  grep: {
    name: "grep",
    description: "Searches workspace files for a regular expression (JavaScript syntax). Returns path:line:text lines.",
    inputSchema: object({ pattern: str("Regular expression."), path: str("File or folder to search (default: the workspace)."), glob: str("Only files whose path matches this glob, e.g. **/*.ts.") }, ["pattern"]),
  },
  glob: {
    name: "glob",
    description: "Lists workspace files matching a glob pattern (*, **, ?, {a,b}), e.g. src/**/*.ts.",
    inputSchema: object({ pattern: str("Glob pattern, workspace-relative.") }, ["pattern"]),
  },
  ls: {
    name: "ls",
    description: "Lists a workspace folder; folder names end with /.",
    inputSchema: object({ path: str("Workspace-relative folder (default: the workspace).") }, []),
  },
};

export const TASK_INPUT_SCHEMA = object({ subagent: str("Subagent id."), prompt: str("The complete task for the subagent; it sees nothing else of this conversation.") }, ["subagent", "prompt"]);

export const MCP_INPUT_SCHEMA = object(
  {
    server: str("MCP server name."),
    tool: str("Tool to call; omit it to list the server's tools."),
    arguments: { type: "object", description: "Arguments of the tool call." },
  },
  ["server"],
);

export type Parsed<T> = { input: T } | { error: string };

/** Checks a harness tool's input; the message of a failure goes back to the model. */
export function parseHarnessInput<N extends HarnessToolName>(name: N, raw: unknown): Parsed<HarnessInputs[N]> {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) return { error: `${name}: the input must be an object` };
  const input = raw as Record<string, unknown>; // SAFETY: a non-null, non-array object
  const problems: string[] = [];
  const text = (key: string, required: boolean): void => {
    const value = input[key];
    if (value === undefined ? required : typeof value !== "string") problems.push(`${key} must be a string`);
  };
  const count = (key: string, min: number): void => {
    const value = input[key];
    if (value !== undefined && !(typeof value === "number" && Number.isInteger(value) && value >= min)) {
      problems.push(`${key} must be an integer of at least ${min}`);
    }
  };
  switch (name) {
    case "shell":
      text("command", true);
      text("stdin", false);
      count("timeoutMs", 1);
      break;
    case "read":
      text("path", true);
      count("offset", 1);
      count("limit", 1);
      break;
    case "edit":
      text("path", true);
      text("oldText", false);
      text("newText", true);
      if (input.oldText === "") problems.push("oldText must not be empty (omit it to write the whole file)");
      break;
    case "grep":
      text("pattern", true);
      text("path", false);
      text("glob", false);
      break;
    case "glob":
      text("pattern", true);
      break;
    case "ls":
      text("path", false);
      break;
  }
  if (problems.length > 0) return { error: `${name}: ${problems.join("; ")}` };
  return { input: input as HarnessInputs[N] }; // SAFETY: every member checked above
}
