/**
 * What the local harness reads from a project besides tools: skills, subagents, MCP connections
 * and the workspace seed folder (docs/guide/agent-projects.md "Layout"). Plain data; the loader
 * fills it from disk.
 * @module
 */
import type { AgentConfig } from "./project.ts";

/** `bot/skills/<name>.ts`: `export default defineSkill({description, markdown, files})`. */
export interface SkillDefinition {
  /** What the skill is for: the model reads it to decide when to load the skill. */
  description: string;
  /** The body of `SKILL.md`. */
  markdown: string;
  /** Sibling files, skill-relative path → contents (e.g. `references/api.md`). */
  files?: Record<string, string>;
}

/**
 * A loaded skill in any of its three forms: `skills/<name>.md`, `skills/<name>/SKILL.md` with
 * sibling files (copied from `dir`), or `skills/<name>.ts`.
 */
export interface ProjectSkill {
  description: string;
  /** The `SKILL.md` text to write (single-file and module forms). */
  markdown?: string;
  /** Sibling files of the module form, skill-relative path → contents. */
  files?: Record<string, string>;
  /** Folder form: the absolute skill folder, copied in whole. */
  dir?: string;
  /** Folder form: changes when a file of the folder changes (names, sizes, modification times). */
  digest?: string;
  /** Project-relative source file or folder, for messages. */
  source?: string;
}

/** `bot/subagents/<id>/agent.ts` (+ `instructions.md`): a delegate the `task` tool runs. */
export interface SubagentDefinition {
  /** Required: the parent reads it to decide when to delegate. */
  description: string;
  /** Omitted: the parent's model. */
  model?: AgentConfig["model"];
  /** `instructions.md` plus inline `instructions`. */
  instructions: string;
  /** The subagent's own harness tool allowlist (same rules as the root's; `task` never nests). */
  tools?: string[];
}

/** `bot/mcp-connections/<name>.ts` over HTTP: `${NAME}` in headers comes from the environment. */
export interface HttpConnectionDefinition {
  url: string;
  headers?: Record<string, string>;
  /**
   * The server takes OAuth access tokens: `agent-serve mcp oauth <name>` authorizes it once and
   * keeps the tokens in the agent's store, and each call sends the stored token, refreshed before
   * it expires (docs/guide/mcp.md "Connections that need OAuth").
   */
  oauth?: true | McpOAuthOptions;
  /** Shown to the model next to the server name. */
  description?: string;
}

/** `bot/mcp-connections/<name>.ts` over stdio: `${NAME}` in env comes from the environment. */
export interface StdioConnectionDefinition {
  command: string;
  args?: string[];
  env?: Record<string, string>;
  /** Working directory of the server process, relative to the project root. @default the project root */
  cwd?: string;
  description?: string;
}

export type ConnectionDefinition = HttpConnectionDefinition | StdioConnectionDefinition;

/** `oauth` of an HTTP connection, when `true` is not enough. */
export interface McpOAuthOptions {
  /** The scopes to ask for. @default the server's `scopes_supported`, else none */
  scopes?: string[];
  /** A client registered beforehand; without it the client registers itself (RFC 7591) where the server offers it. */
  clientId?: string;
}

/** `bot/sandbox/workspace/**`: seed files copied into each new session workspace. */
export interface WorkspaceSeed {
  /** Absolute folder. */
  dir: string;
  /** How many files it holds (for diagnostics and validation). */
  files: number;
}
