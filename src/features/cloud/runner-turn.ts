/**
 * One turn on the runner (docs/design/cloud-runtime.md "The turn protocol"): the session
 * workspace prepared, the harness tools, the agent's own agent-execution tools and the host's
 * server tools offered, the agent loop run with the turn's model, and everything it records
 * written back as NDJSON lines for the host's writer.
 * @module
 */
import { errorMessage } from "../../base/errors.ts";
import type { ProjectDefinition } from "../../base/definitions/project.ts";
import type { BuiltinTool, ToolDefinition, ToolOutcome } from "../../base/definitions/tools.ts";
import type { EventDraft } from "../../base/events/vocabulary.ts";
import { plainMessage } from "../../base/logger.ts";
import type { ConversationMessage, LanguageModelPort, ModelSpec, ModelToolSpec } from "../../base/ports/model.ts";
import type { RuntimePort } from "../../base/ports/runtime.ts";
import { HARNESS_TOOL_NAMES, type HarnessToolId, resolveAllowlist, unknownToolsMessage } from "../../engine/harness/allowlist.ts";
import { type SubagentRunner, harnessTools } from "../../engine/harness/harness-tools.ts";
import { runSubagentLoop } from "../../engine/harness/subagent-loop.ts";
import { normalizeModelSpec } from "../../engine/model/resolve.ts";
import { planWorkspace } from "../../engine/harness/workspace-plan.ts";
import { runAgentTool } from "../../engine/tools/run-tool.ts";
import { toolInputJsonSchema, validateToolInput } from "../../engine/tools/schema.ts";
import { runAgentLoop } from "../../engine/turns/agent-loop.ts";
import { turnRecorder } from "../../engine/turns/run-turn.ts";
import type { PreparedCall, ToolExecutor } from "../../engine/turns/tool-executor.ts";
import { callHostTool } from "./host-tools-client.ts";
import type { RunnerLine, TurnRequest } from "./protocol.ts";
import type { RunnerWorkspaces } from "./runner-workspaces.ts";
import { sessionEnv, withSessionEnv } from "./session-env.ts";

export interface RunnerTurnDeps {
  project: ProjectDefinition;
  runtime: RuntimePort;
  models: (spec: ModelSpec) => LanguageModelPort | { error: string };
  /** The session's workspace on this runner, created (and its repositories checked out) on first use. */
  sessionWorkspace(request: TurnRequest, env: Record<string, string>, signal: AbortSignal): Promise<string>;
  /** The runner's own environment (`envVars` given as names). */
  ownEnv: Record<string, string | undefined>;
  /** Longest an agent-tool script may run. @default 120 s */
  scriptTimeoutMs?: number;
  /** The agent's session workspaces, listed and removed (./runner-workspaces.ts). */
  workspaces?: RunnerWorkspaces;
}

/** Runs the turn, handing each line to `write` in order; never throws (a failure is the `end` line). */
export async function runRunnerTurn(deps: RunnerTurnDeps, request: TurnRequest, signal: AbortSignal, write: (line: RunnerLine) => Promise<void>): Promise<void> {
  let seq = 0;
  const emit = async (draft: EventDraft | EventDraft[], also?: { conversation?: ConversationMessage[] }): Promise<void> => {
    seq += 1;
    await write({ kind: "emit", seq, events: Array.isArray(draft) ? draft : [draft], ...(also?.conversation ? { conversation: also.conversation } : {}) });
  };
  try {
    const { env, problems } = sessionEnv(request.cloud, deps.ownEnv);
    if (problems.length > 0) throw new Error(`the cloud block's environment is not usable: ${problems.join("; ")}`);
    const model = deps.models(request.model);
    if ("error" in model) throw new Error(model.error);
    const runtime = withSessionEnv(deps.runtime, env);
    const cwd = await deps.sessionWorkspace(request, env, signal);
    const planned = plannedWorkspace(deps.project);
    await runtime.prepareWorkspace?.(cwd, planned.plan, request.files ?? {});
    const full = new Set(HARNESS_TOOL_NAMES);
    const scope: TurnScope = { deps, request, runtime, cwd, emit, seq: () => seq };
    const tools = runnerTools(scope, full, subagentRunner(scope, planned.systemNotes, model));
    const result = await runAgentLoop({
      model,
      system: planned.systemNotes,
      params: request.model.params,
      messages: withFirstPrompt(request),
      tools,
      signal,
      maxSteps: request.maxSteps,
      subject: "turn",
      recorder: turnRecorder({ turnId: request.turnId, emit }),
    });
    await write({ kind: "end", outcome: { status: "completed", text: result.text, usage: result.usage, model: model.id } });
  } catch (error) {
    if (signal.aborted) return;
    await write({ kind: "end", outcome: { status: "failed", message: plainMessage(errorMessage(error)) } }).catch(() => {});
  }
}

// --- internals ---

/** What the turn's tools and its subagents' tools run against. */
interface TurnScope {
  deps: RunnerTurnDeps;
  request: TurnRequest;
  runtime: RuntimePort;
  cwd: string;
  emit: (draft: EventDraft) => Promise<void>;
  /** The number of the latest `emit` line, which each host tool call carries. */
  seq: () => number;
}

type Subagents = { list: Array<{ id: string; description: string }>; run: SubagentRunner };

/** The workspace plan of each project, made once: it depends on the project alone. */
const plans = new WeakMap<ProjectDefinition, ReturnType<typeof planWorkspace>>();
function plannedWorkspace(project: ProjectDefinition): ReturnType<typeof planWorkspace> {
  let planned = plans.get(project);
  if (!planned) plans.set(project, (planned = planWorkspace(project)));
  return planned;
}

/**
 * Instructions and the agent-tool catalog go before the first prompt (docs/guide/agent-projects.md
 * "Agent configuration", cloud runtime), in the copy the loop reads, not in the stored conversation.
 */
function withFirstPrompt(request: TurnRequest): ConversationMessage[] {
  const messages = [...request.messages];
  const head = [request.prompt.instructions.trim(), request.prompt.agentTools.trim()].filter(Boolean).join("\n\n");
  const first = messages.findIndex((message) => message.role === "user");
  const message = messages[first];
  // Every turn replays the conversation from its start, so the first prompt carries them each time.
  if (!head || message?.role !== "user") return messages;
  messages[first] = { ...message, content: `${head}\n\n${message.content}` };
  return messages;
}

/**
 * The `task` tool's subagents, run on the runner like the local harness runs them
 * (src/engine/harness/runner.ts): each with its own allowlist, no `task` of its own, its own model
 * or the turn's.
 */
function subagentRunner(scope: TurnScope, notes: string, parent: LanguageModelPort): Subagents | undefined {
  const { deps, request } = scope;
  const defined = deps.project.subagents ?? {};
  const list = Object.entries(defined)
    .map(([id, def]) => ({ id, description: def.description }))
    .sort((a, b) => (a.id < b.id ? -1 : 1));
  if (list.length === 0) return undefined;
  return {
    list,
    async run(id, prompt, signal) {
      const subagent = defined[id];
      if (!subagent) throw new Error(`no subagent ${id}`);
      const own = resolveAllowlist(subagent.tools);
      if (own.unknown.length > 0) throw new Error(unknownToolsMessage(own.unknown, `subagent ${id} tools`));
      const spec = normalizeModelSpec(subagent.model);
      const model = spec ? deps.models(spec) : parent;
      if ("error" in model) throw new Error(model.error);
      const canRead = own.allowed.has("read") || own.allowed.has("shell");
      const result = await runSubagentLoop({
        model,
        system: [subagent.instructions, canRead ? notes : ""].filter(Boolean).join("\n\n"),
        params: spec ? spec.params : request.model.params,
        prompt,
        tools: runnerTools(scope, new Set([...own.allowed].filter((name) => name !== "task")), undefined),
        signal,
        maxSteps: request.maxSteps,
      });
      return { text: result.text, usage: { ...result.usage }, model: model.id };
    },
  };
}

function runnerTools(scope: TurnScope, allowed: ReadonlySet<HarnessToolId>, subagents: Subagents | undefined): ToolExecutor {
  const { deps, request, runtime, cwd, emit, seq } = scope;
  // Agent-execution tools need shell, as in a local turn (docs/guide/agent-projects.md "Agent configuration").
  const agentTools = allowed.has("shell") ? Object.entries(deps.project.tools ?? {}).filter(([, def]) => def.execution === "agent") : [];
  const byName = new Map<string, ToolDefinition>(agentTools);
  const builtins: BuiltinTool[] = harnessTools({
    runtime,
    cwd,
    // `local` (its sandbox included) is ignored for cloud turns (docs/guide/agent-projects.md
    // "Agent configuration"): the runner's machine or container is the boundary.
    sandbox: false,
    // A cloud agent has no allowlist (it fails at start-up); its subagents may have their own.
    allowed,
    connections: deps.project.connections ?? {},
    projectRoot: deps.project.root,
    turnId: request.turnId,
    emit,
    ...(subagents ? { subagents } : {}),
  });
  const hostSpecs = request.tools?.specs ?? [];
  const specs: ModelToolSpec[] = [
    ...agentTools.map(([name, def]) => ({ name, description: def.description, inputSchema: toolInputJsonSchema(def) })),
    ...hostSpecs.filter((spec) => !byName.has(spec.name)),
  ];
  const names = new Set(specs.map((spec) => spec.name));
  specs.push(...builtins.map((tool) => tool.spec).filter((spec) => !names.has(spec.name)));
  const hostNames = new Set(hostSpecs.map((spec) => spec.name));
  return {
    specs,
    async prepare(call): Promise<PreparedCall> {
      const def = byName.get(call.toolName);
      if (!def) return hostNames.has(call.toolName) || builtins.some((tool) => tool.spec.name === call.toolName) ? call : { ...call, error: `unknown tool: ${call.toolName}` };
      try {
        return { ...call, input: await validateToolInput(def, call.input) };
      } catch (error) {
        return { ...call, error: errorMessage(error) };
      }
    },
    async execute(call, signal): Promise<ToolOutcome> {
      if (call.error !== undefined) return { output: call.error, isError: true };
      const def = byName.get(call.toolName);
      if (def) {
        const outcome = await runAgentTool(def, call.input, runtime, { cwd, signal, timeoutMs: deps.scriptTimeoutMs ?? 120_000 });
        return { output: outcome.result, isError: outcome.isError };
      }
      // The host's tool: validated, gated and run there, on the turn's own executor.
      if (hostNames.has(call.toolName) && request.tools) {
        const tools = request.tools;
        return callHostTool({ url: tools.url, credential: () => tools.credential, toolName: call.toolName, toolCallId: call.toolCallId, input: call.input, seq: seq(), signal });
      }
      const builtin = builtins.find((tool) => tool.spec.name === call.toolName);
      if (builtin) return builtin.execute(call.input, { sessionId: request.sessionId, turnId: request.turnId, signal });
      return { output: `unknown tool: ${call.toolName}`, isError: true };
    },
  };
}
