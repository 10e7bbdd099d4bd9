/**
 * What an agent project is once loaded: plain objects and functions. The core never reads the
 * filesystem; adapters load a project directory into a `ProjectDefinition` (DESIGN.md §2).
 * @module
 */
import type { ArtifactsDefinition } from "../artifacts/types.ts";
import type { HookDefinition } from "../hooks/types.ts";
import type { ToolDefinition } from "../tools/types.ts";

export interface ModelParam {
  id: string;
  value: string;
}

/** `bot/agent.ts` (SPEC "Agent configuration"). Every field is optional on the root agent. */
export interface AgentConfig {
  /** Model for turns: `scripted`, `openai/<id>`, `anthropic/<id>`, `openai-compatible/<id>`. */
  model?: string | { id: string; params?: ModelParam[] };
  /** Display name. @default the package or directory name */
  name?: string;
  description?: string;
  /** Inline instructions, appended after `instructions.md`. */
  instructions?: string;
  /** @default "local" */
  runtime?: "local" | "cloud";
  local?: { cwd?: string; workspaceDir?: string; sandbox?: boolean };
  cloud?: Record<string, unknown>;
  hosting?: { egressDomains?: string[]; secretNames?: string[] };
  concurrency?: {
    /** Positive integer, at most 200. Omitted means unlimited; excess turns queue FIFO. */
    maxRunningTurns?: number;
  };
  builtinTools?: { reminders?: boolean };
  tools?: string[];
  /** Per-model price overrides in USD per million tokens (merged over the built-in table). */
  prices?: Record<string, ModelPrice>;
}

/** USD per million tokens. */
export interface ModelPrice {
  input: number;
  output: number;
  cacheRead?: number;
  cacheWrite?: number;
}

export type DiagnosticSeverity = "error" | "warning" | "info";

export interface Diagnostic {
  severity: DiagnosticSeverity;
  code: string;
  message: string;
  /** Project-relative file the diagnostic is about, when there is one. */
  file?: string;
}

export interface ProjectDefinition {
  /** Display name: agent config `name`, else package.json `name`, else the directory name. */
  name: string;
  description?: string;
  /** Absolute project directory when loaded from disk (used for messages and relative paths). */
  root?: string;
  agent: AgentConfig;
  /** The always-on system prompt: `instructions.md` plus inline `instructions`. */
  instructions: string;
  /** Problems found while loading; `serve` refuses to start when any has severity `error`. */
  diagnostics: Diagnostic[];
  /** `bot/tools/<name>.ts`: the file name is the model-facing tool name. */
  tools?: Record<string, ToolDefinition>;
  /** `bot/hooks/**\/<name>.ts`: the path below `hooks/` without extension is the hook name. */
  hooks?: Record<string, HookDefinition>;
  /** `bot/artifacts.ts`. */
  artifacts?: ArtifactsDefinition;
}
