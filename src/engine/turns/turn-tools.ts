/**
 * The tools of one model turn: the agent's server and agent tools, `tag_artifact`, the front
 * end's tools the session was offered (./client-calls.ts), and the
 * approval gate (docs/design/tools.md "Approvals": a parked call keeps the turn running until a
 * human decides; the call lives in storage, so the turn can resume it after a restart).
 * @module
 */
import { TURN_INTERRUPTED, isTurnSuspended, throwIfAborted } from "../../base/abort.ts";
import type { ApprovalRecord, ApprovalStore, Decision } from "../approvals/approval-store.ts";
import type { ModelToolSpec } from "../../base/ports/model.ts";
import type { RuntimePort } from "../../base/ports/runtime.ts";
import type { SessionRecord } from "../../base/definitions/sessions.ts";
import { runAgentTool, runServerTool } from "../tools/run-tool.ts";
import { toolInputJsonSchema, validateToolInput } from "../tools/schema.ts";
import type { ToolDefinition } from "../../base/definitions/tools.ts";
import { type ToolContextServices, createToolContext } from "./tool-context.ts";
import type { PreparedCall, ToolCall, ToolExecutor } from "./tool-executor.ts";
import type { ToolOutcome } from "../../base/definitions/tools.ts";
import type { TurnEmit } from "./run-turn.ts";
import { errorMessage } from "../../base/errors.ts";
import type { BuiltinTool } from "../../base/definitions/tools.ts";
import { clientSpecs, runClientCall } from "./client-calls.ts";

export interface TurnToolsOptions {
  tools: Record<string, ToolDefinition>;
  builtins: BuiltinTool[];
  approvals: ApprovalStore;
  services: ToolContextServices;
  runtime: RuntimePort | undefined;
  /** Longest an agent tool script may run. */
  scriptTimeoutMs: number;
  now: () => number;
}

/** The model-facing specs, computed once per agent: authored tools win over built-ins of the same name. */
export function toolSpecs(options: Pick<TurnToolsOptions, "tools" | "builtins">): ModelToolSpec[] {
  const authored = Object.entries(options.tools).map(([name, def]) => ({
    name,
    description: def.description,
    inputSchema: toolInputJsonSchema(def),
  }));
  const names = new Set(authored.map((spec) => spec.name));
  return [...authored, ...options.builtins.map((tool) => tool.spec).filter((spec) => !names.has(spec.name))];
}

export function createTurnTools(
  options: TurnToolsOptions,
  specs: ModelToolSpec[],
  turn: { record: SessionRecord; turnId: string; emit: TurnEmit },
): ToolExecutor {
  const { sessionId } = turn.record;
  const client = clientSpecs(turn.record, specs);
  const clientNames = new Set(client.map((spec) => spec.name));
  let workspace: Promise<string> | undefined;
  const workspaceDir = (): Promise<string | undefined> =>
    options.runtime ? (workspace ??= options.runtime.sessionWorkspace(sessionId)) : Promise.resolve(undefined);

  return {
    specs: client.length === 0 ? specs : [...specs, ...client],
    async prepare(call: ToolCall): Promise<PreparedCall> {
      const def = options.tools[call.toolName];
      // The front end validates its own tools' input.
      if (!def && clientNames.has(call.toolName)) return call;
      if (!def) {
        const known = options.builtins.some((tool) => tool.spec.name === call.toolName);
        return known ? call : { ...call, error: `unknown tool: ${call.toolName}` };
      }
      try {
        return { ...call, input: await validateToolInput(def, call.input) };
      } catch (error) {
        return { ...call, error: errorMessage(error) };
      }
    },
    async execute(call: PreparedCall, signal: AbortSignal): Promise<ToolOutcome> {
      const def = options.tools[call.toolName];
      // A call parked before a reload or deploy meets the tools of now (docs/design/deploy-safe-sessions.md).
      const parked = call.resumed ? await parkedHere(call.toolCallId) : undefined;
      if (parked) {
        const stale = staleReason(call, def);
        if (stale !== undefined) return notRunStale(parked, stale);
      }
      if (call.error !== undefined) return { output: call.error, isError: true };
      if (!def && clientNames.has(call.toolName)) return runClientCall(options.approvals, turn, call, signal, options.now);
      if (!def) {
        const builtin = options.builtins.find((tool) => tool.spec.name === call.toolName);
        if (builtin) return builtin.execute(call.input, { sessionId, turnId: turn.turnId, signal });
        return { output: `unknown tool: ${call.toolName}`, isError: true };
      }
      const { input } = call;
      const cwd = await workspaceDir();
      if (def.execution === "agent") {
        if (!options.runtime || cwd === undefined) return { output: "agent tools need a local runtime to run scripts", isError: true };
        const outcome = await runAgentTool(def, input, options.runtime, { cwd, signal, timeoutMs: options.scriptTimeoutMs });
        return { output: outcome.result, isError: outcome.isError };
      }
      // A parked call keeps waiting for its decision even if the tool no longer asks for one:
      // a human was asked, and running it before their answer would surprise them.
      if (parked || (await needsApproval(def, input))) {
        const decision = await park(call, input, signal);
        if (decision === "deny") return { output: "denied", isError: true };
        // A stop that lands right after the approval wins: the tool does not run.
        throwIfAborted(signal, TURN_INTERRUPTED);
      }
      const context = createToolContext(options.services, {
        toolCallId: call.toolCallId,
        record: turn.record,
        turnId: turn.turnId,
        workspaceDir: cwd,
        signal,
      });
      const outcome = await runServerTool(def, input, context);
      return { output: outcome.result, isError: outcome.isError };
    },
  };

  /**
   * Parks the call until a human decides. The pending record commits with
   * `action.approval_requested`, and the decision is closed with `action.approval_resolved`; a
   * call already parked (a turn resumed after a restart) is not requested again.
   */
  async function park(call: ToolCall, input: unknown, signal: AbortSignal): Promise<Decision> {
    const { approvals } = options;
    const callId = call.toolCallId;
    const existing = await approvals.get(sessionId, callId);
    // Some providers reuse call ids across turns: only this turn's open record is the same call.
    if (existing === undefined || existing.status === "closed" || existing.turnId !== turn.turnId) {
      const view = { callId, toolName: call.toolName, input, turnId: turn.turnId, requestedAt: new Date(options.now()).toISOString() };
      await turn.emit(
        { type: "action.approval_requested", turnId: turn.turnId, data: { callId, toolName: view.toolName, input } },
        { records: [approvals.parkWrite(sessionId, view)] },
      );
    }
    let decided: ApprovalRecord;
    try {
      decided = await approvals.wait(sessionId, callId, signal);
    } catch (error) {
      // Suspended (the host is closing): the call stays parked in storage for the next start.
      if (isTurnSuspended(error)) throw error;
      // The turn ended first (stop, preempt): the call closes, unless a decision landed meanwhile,
      // which is still recorded (its resolver was told it took effect).
      const landed = await approvals.abandon(sessionId, callId).catch(() => undefined);
      if (landed) await resolved(landed).catch(() => {});
      throw error;
    }
    await resolved(decided);
    return decided.decision ?? "deny";
  }

  /** This turn's call parked for approval (pending, or decided and not yet recorded), if `callId` is one. */
  async function parkedHere(callId: string): Promise<ApprovalRecord | undefined> {
    const record = await options.approvals.get(sessionId, callId);
    return record && record.status !== "closed" && record.kind === undefined && record.turnId === turn.turnId ? record : undefined;
  }

  /**
   * A parked call whose tool is gone or whose input the tool's new schema refuses: it does not
   * run. A decision already made is recorded as made (a denial still reads as denied); an
   * undecided call is closed, so a late decision is told 409.
   */
  async function notRunStale(record: ApprovalRecord, why: string): Promise<ToolOutcome> {
    if (record.status === "decided") {
      await resolved(record);
      if (record.decision !== "approve") return { output: "denied", isError: true };
    } else {
      await options.approvals.close(sessionId, [record]);
    }
    return { output: `${STALE_CALL} ${why}`, isError: true };
  }

  function resolved(record: ApprovalRecord): Promise<unknown> {
    return turn.emit(
      { type: "action.approval_resolved", turnId: turn.turnId, data: { callId: record.callId, decision: record.decision ?? "deny" } },
      { records: [options.approvals.closeWrite(sessionId, record)] },
    );
  }
}

/**
 * How the result of a parked call that no longer fits the agent's definition begins; the model
 * reads why after it, and may call the tool again as it is now.
 */
export const STALE_CALL = "not run: the agent's definition changed while this call waited for approval, and";

/**
 * Why a parked call may not run on the tools of now, or undefined when it still fits: its server
 * tool is gone (a built-in or front-end tool of the same name is not the tool that was approved),
 * its input fails the new schema, or the tool now runs as an agent tool, which takes no approval.
 */
function staleReason(call: PreparedCall, def: ToolDefinition | undefined): string | undefined {
  if (!def) return `the tool ${call.toolName} no longer exists`;
  if (call.error !== undefined) return `its input no longer validates against the new schema of ${call.toolName} (${call.error})`;
  if (def.execution === "agent") return `${call.toolName} now runs as an agent tool, which takes no approval`;
  return undefined;
}

async function needsApproval(def: ToolDefinition, input: unknown): Promise<boolean> {
  const gate = def.needsApproval;
  return typeof gate === "function" ? Boolean(await gate(input)) : gate === true;
}
