/**
 * What an agent project is once loaded: plain objects and functions. The core never reads the
 * filesystem; adapters load a project directory into a `ProjectDefinition`
 * (docs/guide/agent-projects.md "Layout").
 * @module
 */
import type { ArtifactsDefinition } from "./artifacts.ts";
import type { BudgetsConfig } from "./budgets.ts";
import type { ChannelDefinition } from "./channels.ts";
import type { EvalConfig, EvalDefinition } from "./evals.ts";
import type { ExtensionInfo } from "./extensions.ts";
import type { ExperimentDefinition } from "./experiments.ts";
import type { ConnectionDefinition, ProjectSkill, SubagentDefinition, WorkspaceSeed } from "./harness.ts";
import type { HookDefinition } from "./hooks.ts";
import type { KvConfig } from "./kv.ts";
import type { ScheduleDefinition } from "./schedules.ts";
import type { ToolDefinition } from "./tools.ts";
import type { WebhookEndpoint } from "./webhooks.ts";

export interface ModelParam {
  id: string;
  value: string;
}

/** `bot/agent.ts` (docs/guide/agent-projects.md "Agent configuration"). Every field is optional on the root agent. */
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
  /**
   * A/B experiments: each new session (eval traffic excepted) draws one arm per experiment by
   * weight and keeps it for every turn; an arm may replace the model, merge model params or
   * replace the instructions.
   */
  experiments?: ExperimentDefinition[];
  /** `ctx.host.kv`: any unstorage driver instead of the host's storage. @default the host's storage */
  kv?: KvConfig;
  /** What the A2A agent card declares (docs/guide/a2a.md "The agent card"). */
  a2a?: A2AConfig;
  /** Signed lifecycle webhooks: session events posted to each endpoint (docs/guide/webhooks.md). */
  webhooks?: WebhookEndpoint[];
  /**
   * Hard limits on tokens, cost, tool calls and seconds per turn, session, principal per UTC day
   * and agent per UTC day (docs/guide/budgets.md).
   */
  budgets?: BudgetsConfig;
}

/** A skill as an A2A agent card lists it. */
export interface A2ASkillDeclaration {
  id: string;
  name: string;
  description: string;
  tags?: string[];
  /** Example prompts. */
  examples?: string[];
}

export interface A2AConfig {
  /** The card's skills, in place of the ones derived from the project's skills and tools. */
  skills?: A2ASkillDeclaration[];
  /**
   * Skills only callers the agent's auth chain admits see: declaring them turns on the extended
   * agent card (`GetExtendedAgentCard`), the public card's skills plus these.
   */
  extendedSkills?: A2ASkillDeclaration[];
  /**
   * Push notifications may go to loopback and private addresses (receivers on the same network).
   * Security: any caller the chain admits can then make the server post inside that network.
   * @default false (allowed only under `--dev`)
   */
  allowPrivatePushTargets?: boolean;
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
  /** `bot/schedules/<name>.md` and `<name>.ts`: the file name is the schedule id. */
  schedules?: Record<string, ScheduleDefinition>;
  /** `bot/skills/`: `<name>.md`, `<name>/SKILL.md` (+ sibling files) or `<name>.ts` (defineSkill). */
  skills?: Record<string, ProjectSkill>;
  /** `bot/subagents/<id>/`: delegates the `task` harness tool runs. */
  subagents?: Record<string, SubagentDefinition>;
  /** `bot/mcp-connections/<name>.ts`: MCP servers the `mcp` harness tool calls. */
  connections?: Record<string, ConnectionDefinition>;
  /** `bot/sandbox/workspace/`: seed files copied into each new session workspace. */
  workspaceSeed?: WorkspaceSeed;
  /**
   * `evals/**\/*.eval.ts` at the project root, by eval id (`readiness`, `builds`, `sql/0000`);
   * a definition with `cases` adds `/<case id>` per case.
   */
  evals?: Record<string, EvalDefinition>;
  /** `evals/evals.config.ts`. */
  evalConfig?: EvalConfig;
  /** `bot/extensions/<ns>.ts`, by namespace: what each mounted (contributions are merged above). */
  extensions?: Record<string, ExtensionInfo>;
  /** Workspace seed files contributed by extensions, workspace-relative path → contents. */
  seedFiles?: Record<string, string>;
  /**
   * Custom channels by id: `bot/channels/<id>.ts` (the file name is the id and route prefix
   * `/v1/channels/<id>`); `http` overrides the built-in HTTP channel. Extensions may add entries
   * here before the host is created.
   */
  channels?: Record<string, ChannelDefinition>;
}
