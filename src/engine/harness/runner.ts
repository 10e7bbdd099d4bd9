/**
 * The local harness around an agent's turn runner: before each turn on a local runtime it
 * prepares the session workspace and gives the turn the harness tools the allowlist grants, with
 * the skills index in the system prompt. It fails the turns of a misconfigured agent (unknown
 * allowlist names, a cloud-runtime agent composed without the cloud runtime) with a clear message.
 * Cloud sessions never reach it where the host composes the cloud runtime (src/host/cloud-turns.ts).
 * @module
 */
import { normalizeModelSpec } from "../model/resolve.ts";
import type { LanguageModelPort, ModelSpec, Usage } from "../../base/ports/model.ts";
import type { ProjectDefinition } from "../../base/definitions/project.ts";
import type { SessionRecord } from "../../base/definitions/sessions.ts";
import type { ToolDefinition } from "../../base/definitions/tools.ts";
import type { ToolExecutor } from "../turns/tool-executor.ts";
import type { TurnHandle, TurnRunner, TurnSetup } from "../turns/turn-runner.ts";
import { type TurnToolsOptions, createTurnTools, toolSpecs } from "../turns/turn-tools.ts";
import { type BuiltinTool } from "../../base/definitions/tools.ts";
import { type Allowlist, resolveAllowlist, unknownToolsMessage } from "./allowlist.ts";
import { harnessTools } from "./harness-tools.ts";
import type { McpOAuthTokens } from "./mcp-oauth-tokens.ts";
import type { PendingWorkspaceFiles } from "./pending-files.ts";
import { runSubagentLoop } from "./subagent-loop.ts";
import { planWorkspace } from "./workspace-plan.ts";
import { errorMessage } from "../../base/errors.ts";

/** Why turns of a cloud-runtime agent fail where no cloud runtime is composed around the harness. */
export const NO_CLOUD_RUNTIME =
  'this agent sets runtime: "cloud", and this host has no cloud runtime: remove runtime (or set it to "local") to run turns locally';

export interface HarnessOptions {
  project: ProjectDefinition;
  /** The agent's tools; `runtime` is the agent-bound runtime (bindRuntime). */
  tools: TurnToolsOptions;
  /** Resolves a subagent's own model (cached by the caller). */
  models: (spec: ModelSpec) => LanguageModelPort | { error: string };
  /** Per-send workspace files waiting for the session's next turn. */
  pendingFiles?: PendingWorkspaceFiles;
  /** The stored tokens of MCP connections that take OAuth. */
  oauthTokens?: McpOAuthTokens;
}

export function withHarness(runner: TurnRunner, options: HarnessOptions): TurnRunner {
  const { project, tools } = options;
  const allowlist = resolveAllowlist(project.agent.tools);
  const runtime = tools.runtime;
  const planned = runtime && (runtime.harness || runtime.prepareWorkspace) ? planWorkspace(project) : undefined;
  const sandbox = project.agent.local?.sandbox === true;

  return {
    async prepare(record, turn) {
      const setup = await runner.prepare(record, turn);
      if (project.agent.runtime === "cloud") return { ...setup, model: { error: NO_CLOUD_RUNTIME } };
      if (allowlist.unknown.length > 0) return { ...setup, model: { error: unknownToolsMessage(allowlist.unknown) } };
      if (!runtime || !planned) return setup;

      let cwd: string;
      try {
        cwd = await runtime.sessionWorkspace(record.sessionId);
      } catch (error) {
        return { ...setup, model: { error: `cannot prepare the session workspace: ${errorMessage(error)}` } };
      }
      // Prepared while the model thinks: every tool waits for it, and so does the turn's end
      // (docs/design/storage.md, "The turn path").
      const ready = (async () => {
        const files = (await options.pendingFiles?.take(record.sessionId)) ?? {};
        await runtime.prepareWorkspace?.(cwd, planned.plan, files);
      })().catch((error: unknown) => {
        throw new Error(`cannot prepare the session workspace: ${errorMessage(error)}`);
      });
      ready.catch(() => {});
      const notes = planned.systemNotes;
      // Every tool run, the subagents' included, counts toward the turn's budgets (docs/guide/budgets.md).
      const metered = (executor: ToolExecutor): ToolExecutor => (setup.meterTools ? setup.meterTools(executor) : executor);
      const toolset = (list: Allowlist, withTask: boolean): ToolExecutor =>
        metered(turnTools(record, turn, runnableTools(tools.tools, list), harnessTools({
          runtime,
          cwd,
          sandbox,
          allowed: list.allowed,
          connections: project.connections ?? {},
          ...(options.oauthTokens ? { oauthTokens: options.oauthTokens } : {}),
          projectRoot: project.root,
          turnId: turn.turnId,
          emit: turn.emit,
          // Subagents never start subagents: their toolsets have no `task`.
          ...(withTask ? { subagents: { list: subagentList(project), run: runSubagent } } : {}),
        })));

      async function runSubagent(id: string, prompt: string, signal: AbortSignal): Promise<{ text: string; usage: Usage; model: string }> {
        const subagent = project.subagents?.[id];
        if (!subagent) throw new Error(`no subagent ${id}`);
        const own = resolveAllowlist(subagent.tools);
        if (own.unknown.length > 0) throw new Error(unknownToolsMessage(own.unknown, `subagent ${id} tools`));
        // Omitted model: the parent's, as this turn runs it (A/B arms included).
        const spec = normalizeModelSpec(subagent.model);
        const resolved = spec ? options.models(spec) : setup.model;
        if ("error" in resolved) throw new Error(resolved.error);
        // Its calls count toward the turn's budgets (docs/guide/budgets.md), not as the turn's own.
        const model = setup.meter ? setup.meter(resolved) : resolved;
        const result = await runSubagentLoop({
          model,
          system: withNotes(subagent.instructions, notes, own),
          params: spec ? spec.params : setup.params,
          prompt,
          tools: afterReady(toolset(own, false), ready),
          signal,
          maxSteps: setup.maxSteps,
        });
        return { text: result.text, usage: { ...result.usage }, model: model.id };
      }

      return { ...setup, system: withNotes(setup.system, notes, allowlist), tools: afterReady(toolset(allowlist, true), ready), ready } satisfies TurnSetup;
    },
  };

  function turnTools(record: SessionRecord, turn: TurnHandle, authored: Record<string, ToolDefinition>, harness: BuiltinTool[]): ToolExecutor {
    const turnOptions: TurnToolsOptions = { ...tools, tools: authored, builtins: [...tools.builtins, ...harness] };
    return createTurnTools(turnOptions, toolSpecs(turnOptions), { record, turnId: turn.turnId, emit: turn.emit });
  }
}

// --- internals ---

/** The executor with every tool run held until the workspace is ready (its failure is the tool's). */
function afterReady(executor: ToolExecutor, ready: Promise<void>): ToolExecutor {
  return {
    specs: executor.specs,
    prepare: (call) => executor.prepare(call),
    async execute(call, signal) {
      await ready;
      return executor.execute(call, signal);
    },
  };
}

/**
 * The authored tools a turn may call: agent-execution tools need shell
 * (docs/guide/agent-projects.md "Agent configuration": `shell` grants the shell input they run
 * with).
 */
function runnableTools(tools: Record<string, ToolDefinition>, list: Allowlist): Record<string, ToolDefinition> {
  if (list.allowed.has("shell")) return tools;
  return Object.fromEntries(Object.entries(tools).filter(([, def]) => def.execution !== "agent"));
}

function subagentList(project: ProjectDefinition): Array<{ id: string; description: string }> {
  return Object.entries(project.subagents ?? {})
    .map(([id, def]) => ({ id, description: def.description }))
    .sort((a, b) => (a.id < b.id ? -1 : 1));
}

/** The skills index joins the system prompt when the model can read the skill files. */
function withNotes(instructions: string, notes: string, list: Allowlist): string {
  if (!notes || !(list.allowed.has("read") || list.allowed.has("shell"))) return instructions;
  return [instructions, notes].filter(Boolean).join("\n\n");
}
