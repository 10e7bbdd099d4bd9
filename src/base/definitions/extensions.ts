/**
 * Extensions (`bot/extensions/<ns>.ts`): packaged tools, skills, instructions, connections, hooks,
 * channels, schedules, subagents, artifact kinds and workspace seeds, mounted under a namespace:
 * every contribution is named `<ns>__<name>` (docs/design/agent-sdk-compatibility.md).
 * @module
 */
import type { StandardSchema } from "../validate.ts";
import type { ArtifactKind } from "./artifacts.ts";
import type { ChannelDefinition } from "./channels.ts";
import type { ConnectionDefinition, SkillDefinition } from "./harness.ts";
import type { HookDefinition } from "./hooks.ts";
import type { ScheduleDefinition } from "./schedules.ts";
import type { ToolDefinition } from "./tools.ts";

/** A subagent as an extension contributes it (the same fields as `bot/subagents/<id>/agent.ts`). */
export interface ExtensionSubagent {
  description: string;
  instructions: string;
  model?: string | { id: string; params?: Array<{ id: string; value: string }> };
  tools?: string[];
}

/** What an extension contributes; each record's keys are names that become `<ns>__<name>`. */
export interface ExtensionContributions {
  /** Shown in `info` and `/v1/info`. */
  name?: string;
  description?: string;
  tools?: Record<string, ToolDefinition>;
  /** Skills as `defineSkill` writes them, or a Markdown body whose first line is the description. */
  skills?: Record<string, SkillDefinition | string>;
  /** Appended to the agent's instructions under a heading naming the extension. */
  instructions?: string;
  connections?: Record<string, ConnectionDefinition>;
  hooks?: Record<string, HookDefinition>;
  /** Channel definitions (`defineChannel`), mounted at `/v1/channels/<ns>__<name>`. */
  channels?: Record<string, ChannelDefinition>;
  schedules?: Record<string, ScheduleDefinition>;
  subagents?: Record<string, ExtensionSubagent>;
  /** Artifact kinds, named `<ns>__<kind>`. */
  artifacts?: { kinds?: Record<string, ArtifactKind> };
  /** Workspace seed files, workspace-relative path → contents, written under `<ns>/`. */
  seeds?: Record<string, string>;
  /** What a deployment must allow for it (egress hosts, secret names), listed in `info`. */
  hosting?: { egressDomains?: string[]; secretNames?: string[] };
}

/** The form a configurable extension's factory returns: the host validates `config` at load. */
export interface ExtensionMount<Config = unknown> {
  readonly kind: "agent-serve.extension";
  /** Checked against the config before `setup` runs; a failure is an error diagnostic. */
  configSchema?: StandardSchema<Config>;
  config: unknown;
  setup(config: Config): ExtensionContributions;
}

/** One mounted extension as `/v1/info` and `info` list it. */
export interface ExtensionInfo {
  namespace: string;
  name: string | null;
  description: string | null;
  tools: string[];
  skills: string[];
  connections: string[];
  hooks: string[];
  channels: string[];
  schedules: string[];
  subagents: string[];
  artifactKinds: string[];
  seeds: string[];
  egressDomains: string[];
  secretNames: string[];
}
