/**
 * The project-info object of `GET /v1/info` (docs/design/mcp-and-discovery.md "Discovery and
 * meta"): what the agent is made of and how to reach it, with diagnostics. Plain data, so the CLI's
 * `info` command and the playground can read the same object.
 * @module
 */
import { AGENT_CARD_PATH, JSONRPC_PATH } from "../a2a/card.ts";
import { compileCron } from "../../base/cron.ts";
import type { ModelSpec } from "../../base/ports/model.ts";
import type { Route } from "../../base/route.ts";
import type { RuntimePort } from "../../base/ports/runtime.ts";
import { type ChannelInfo, describeChannels, jsonSchemaOf } from "../channels/describe.ts";
import { DEFAULT_MAX_ARTIFACTS } from "../artifacts/store.ts";
import { offeredHarnessTools } from "../../engine/harness/allowlist.ts";
import type { ExperimentDefinition } from "../../base/definitions/experiments.ts";
import type { ExtensionInfo } from "../../base/definitions/extensions.ts";
import { paramRecord } from "../../engine/experiments/variant.ts";
import { normalizeModelSpec } from "../../engine/model/resolve.ts";
import type { Diagnostic, ProjectDefinition } from "../../base/definitions/project.ts";
import { toolInputJsonSchema } from "../../engine/tools/schema.ts";
import type { JsonSchemaObject, ToolDefinition } from "../../base/definitions/tools.ts";

export interface RouteInfo {
  method: string;
  /** Full path, base path included (`/<slug>/v1/...` in multi mode). */
  path: string;
  summary: string;
  bodySchema?: JsonSchemaObject;
  querySchema?: JsonSchemaObject;
}

export interface ToolInfo {
  name: string;
  description: string;
  execution: "server" | "agent";
  /** `"predicate"` when a function decides per call. */
  needsApproval: boolean | "predicate";
  inputSchema: JsonSchemaObject;
  /** `read` or `write` as declared, else null. */
  effect: "read" | "write" | null;
  /** Whether a dry run (an eval session calling a write tool) returns `dryRunResult` instead. */
  dryRun: boolean;
  /** The result's JSON Schema, when the tool declares an `outputSchema`. */
  outputSchema?: JsonSchemaObject;
}

export interface ProjectInfo {
  name: string;
  slug: string;
  /**
   * The version of the agent definition this host serves, as every `turn.started` records it
   * (docs/design/deploy-safe-sessions.md); only a serving host has one.
   */
  agentVersion?: string;
  description: string | null;
  model: { id: string; params: Record<string, string>; notice?: string };
  tools: ToolInfo[];
  skills: unknown[];
  mcpConnections: unknown[];
  subagents: unknown[];
  /**
   * The local harness: the built-in tools turns are offered (after the `tools` allowlist; none on a
   * cloud runtime or a runtime without a harness) and whether shell commands are sandboxed.
   */
  harness: { runtime: "local" | "cloud"; tools: string[]; sandbox: boolean };
  /** The built-in HTTP channel's routes, then each custom channel (`bot/channels/<id>.ts`). */
  channels: Array<{ id: string; routes: RouteInfo[] } | ChannelInfo>;
  schedules: Array<{ id: string; [key: string]: unknown }>;
  hooks: string[];
  artifacts: { kinds: Array<{ name: string; description: string }>; agentTool: boolean; max: number } | null;
  abs: ExperimentInfo[];
  /** Mounted extensions with their namespaced contributions, egress hosts and secret names. */
  extensions: ExtensionInfo[];
  /** The agent's A2A endpoints (docs/guide/a2a.md), paths on this host. */
  a2a: { agentCard: string; jsonRpc: string };
  diagnostics: Diagnostic[];
}

/** An A/B experiment as declared; live totals are on `GET /v1/abs`. */
export interface ExperimentInfo {
  id: string;
  arms: Array<{
    id: string;
    weight: number;
    /** The arm's model, or null when it keeps the agent's. */
    model: { id: string; params: Record<string, string> } | null;
    /** Params merged over the model's. */
    params: Record<string, string>;
    /** Whether the arm replaces the agent's instructions. */
    replacesInstructions: boolean;
  }>;
}

/** Diagnostic code of the notice that turns run on the offline scripted model for lack of a credential. */
export const SCRIPTED_FALLBACK_CODE = "scripted_model_fallback";

export function projectInfo(
  agent: { slug: string; project: ProjectDefinition; basePath: string; model: { spec: ModelSpec; notice?: string }; runtime?: RuntimePort | undefined },
  routes: ReadonlyArray<Pick<Route, "method" | "path" | "summary" | "bodySchema" | "querySchema">>,
): ProjectInfo {
  const { project } = agent;
  const diagnostics = [...project.diagnostics];
  if (agent.model.notice) diagnostics.push({ severity: "warning", code: SCRIPTED_FALLBACK_CODE, message: agent.model.notice });
  return {
    name: project.name,
    slug: agent.slug,
    description: project.description ?? null,
    model: { id: agent.model.spec.id, params: agent.model.spec.params, ...(agent.model.notice ? { notice: agent.model.notice } : {}) },
    tools: Object.entries(project.tools ?? {})
      .map(([name, definition]) => toolInfo(name, definition))
      .sort(byName),
    ...harnessInfo(project),
    harness: {
      runtime: project.agent.runtime === "cloud" ? "cloud" : "local",
      // Without a runtime object (the CLI's offline info) the agent is described as `serve` runs it.
      tools: offeredHarnessTools(project, "runtime" in agent ? Boolean(agent.runtime?.harness) : true),
      sandbox: project.agent.local?.sandbox === true,
    },
    channels: [
      {
        id: "http",
        routes: routes.map(({ method, path, summary, bodySchema, querySchema }) => ({
          method,
          path: `${agent.basePath}${path}`,
          summary,
          ...(bodySchema ? { bodySchema: jsonSchemaOf(bodySchema) } : {}),
          ...(querySchema ? { querySchema: jsonSchemaOf(querySchema) } : {}),
        })),
      },
      ...describeChannels(project.channels, agent.basePath),
    ],
    schedules: scheduleEntries(project),
    hooks: Object.keys(project.hooks ?? {}).sort(),
    artifacts: project.artifacts
      ? {
          kinds: Object.entries(project.artifacts.kinds ?? {}).map(([name, kind]) => ({ name, description: kind.description })),
          agentTool: project.artifacts.agentTool === true,
          max: project.artifacts.max ?? DEFAULT_MAX_ARTIFACTS,
        }
      : null,
    abs: (project.agent.experiments ?? []).map(experimentInfo),
    extensions: Object.values(project.extensions ?? {}).sort((a, b) => (a.namespace < b.namespace ? -1 : 1)),
    a2a: { agentCard: `${agent.basePath}${AGENT_CARD_PATH}`, jsonRpc: `${agent.basePath}${JSONRPC_PATH}` },
    diagnostics,
  };
}

// --- internals ---

/** Skills, subagents and MCP connections; connection headers and env (credentials) are never shown. */
function harnessInfo(project: ProjectDefinition): Pick<ProjectInfo, "skills" | "subagents" | "mcpConnections"> {
  const sorted = <T>(record: Record<string, T> | undefined): Array<[string, T]> =>
    Object.entries(record ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return {
    skills: sorted(project.skills).map(([name, skill]) => ({ name, description: skill.description })),
    subagents: sorted(project.subagents).map(([id, subagent]) => ({
      id,
      description: subagent.description,
      model: typeof subagent.model === "string" ? subagent.model : (subagent.model?.id ?? null),
      ...(subagent.tools ? { tools: subagent.tools } : {}),
    })),
    mcpConnections: sorted(project.connections).map(([name, connection]) =>
      "url" in connection
        ? { name, transport: "http", url: connection.url, description: connection.description ?? null }
        : { name, transport: "stdio", command: connection.command, description: connection.description ?? null },
    ),
  };
}

function experimentInfo(experiment: ExperimentDefinition): ExperimentInfo {
  return {
    id: experiment.id,
    arms: experiment.arms.map((arm) => ({
      id: arm.id,
      weight: arm.weight,
      model: normalizeModelSpec(arm.model) ?? null,
      params: paramRecord(arm.params ?? []),
      replacesInstructions: arm.instructions !== undefined,
    })),
  };
}

function toolInfo(name: string, definition: ToolDefinition): ToolInfo {
  const approval = definition.needsApproval;
  return {
    name,
    description: definition.description,
    execution: definition.execution ?? "server",
    needsApproval: typeof approval === "function" ? "predicate" : approval === true,
    inputSchema: toolInputJsonSchema(definition),
    effect: definition.effect === "read" || definition.effect === "write" ? definition.effect : null,
    dryRun: definition.effect === "write" && definition.dryRunResult !== undefined,
    ...(definition.outputSchema === undefined ? {} : { outputSchema: toolInputJsonSchema({ inputSchema: definition.outputSchema }) }),
  };
}

/**
 * Schedules, when the loaded project declares them (a record keyed by schedule id): the id plus
 * the JSON-safe scalar members of each declaration (cron, timezone and the like).
 */
function scheduleEntries(project: ProjectDefinition): ProjectInfo["schedules"] {
  const declared: unknown = "schedules" in project ? project.schedules : undefined;
  if (typeof declared !== "object" || declared === null || Array.isArray(declared)) return [];
  return Object.entries(declared)
    .map(([id, schedule]: [string, unknown]) => ({ id, ...scalars(schedule), nextFireAt: nextFireAt(schedule) }))
    .sort(byId);
}

/** When the schedule's cron next matches (ISO), or null for no usable cron. */
function nextFireAt(schedule: unknown): string | null {
  const cron = typeof schedule === "object" && schedule !== null ? (schedule as { cron?: unknown }).cron : undefined;
  if (typeof cron !== "string") return null;
  try {
    const next = compileCron(cron.trim()).next(Date.now());
    return next === null ? null : new Date(next).toISOString();
  } catch {
    return null;
  }
}

function scalars(value: unknown): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = {};
  if (typeof value !== "object" || value === null) return out;
  for (const [key, member] of Object.entries(value)) {
    if (typeof member === "string" || typeof member === "number" || typeof member === "boolean") out[key] = member;
  }
  return out;
}

const byName = (a: { name: string }, b: { name: string }): number => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
const byId = (a: { id: string }, b: { id: string }): number => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
