/**
 * One turn: the agent loop (./agent-loop.ts) over the session's stored conversation, every step
 * and tool result recorded in the event log and the conversation before the next step starts, the
 * conversation in the same commit as the step's last event (docs/design/storage.md).
 * @module
 */
import { isTurnSuspended } from "../../base/abort.ts";
import { plainMessage } from "../../base/logger.ts";
import type { ConversationMessage, LanguageModelPort, ToolCallPart, ToolResultPart, Usage } from "../../base/ports/model.ts";
import type { EventDraft, SessionEvent } from "../../base/events/vocabulary.ts";
import { StorageUnavailableError } from "../../base/storage/errors.ts";
import { isBudgetStop } from "../budgets/budget-stop.ts";
import type { RecordWrite } from "../../base/storage/types.ts";
import { type AgentLoopInput, type LoopRecorder, runAgentLoop } from "./agent-loop.ts";
import type { ConversationLog } from "./conversation.ts";
import { type ToolExecutor, toModelOutput } from "./tool-executor.ts";

export interface TurnInput {
  sessionId: string;
  turnId: string;
  system: string;
  params: Record<string, string>;
  /** A model, or the reason none could be resolved (the turn then fails with it). */
  model: LanguageModelPort | { error: string };
  tools: ToolExecutor;
  conversation: ConversationLog;
  signal: AbortSignal;
  /** Appends an event; the promise settles when it is durable. */
  emit: TurnEmit;
  maxSteps: number;
  /**
   * Work prepared alongside the turn (the session workspace): the turn does not wait for it to
   * start, but completes only once it is done, and fails if it failed.
   */
  ready?: Promise<void>;
  /** Step 0's `step.started` is already recorded (with the turn's start): the loop does not record it again. */
  firstStepRecorded?: boolean;
  /**
   * Runs the loop somewhere else (a cloud runner, docs/design/cloud-runtime.md): it gets what the
   * local loop would and reports through the same recorder, so its events reach the same writer.
   */
  remote?: RemoteLoop;
}

/**
 * A loop run elsewhere: the stored conversation in, the answer out; what the loop records arrives
 * as the drafts `turnRecorder` would hand `emit` (with a step's message), in the order made.
 */
export type RemoteLoop = (
  input: Pick<AgentLoopInput, "messages" | "resume" | "system" | "params" | "maxSteps" | "signal"> & {
    emit: TurnEmit;
    /** The turn ran before this process started (a host restart): pick it up where its log ends. */
    reattach?: boolean;
  },
) => Promise<{
  text: string;
  usage: Usage;
  model: string;
}>;

/**
 * Appends an event (or several, in order, in one commit), with conversation messages and records
 * that must commit together with it.
 */
export type TurnEmit = (draft: EventDraft | EventDraft[], also?: { conversation?: ConversationMessage[]; records?: RecordWrite[] }) => Promise<unknown>;

/**
 * How a turn ended. `suspended`: it stopped without an ending, parked for approval while the host
 * closed; nothing is recorded and a later start resumes it (docs/design/tools.md "Approvals").
 */
export type TurnOutcome =
  | {
      status: "completed";
      usage: Usage;
      text: string;
      model: string;
      /**
       * The last step's events, still being committed: the turn's end commits right behind them
       * (the session writer chains it, ../sessions/session-writer.ts) or waits for this first.
       */
      recording?: Promise<void>;
    }
  | { status: "failed"; message: string }
  | { status: "interrupted" }
  | { status: "suspended" };

/** The `turn.failed` message of a turn the store stopped taking writes for. */
export const STORAGE_UNAVAILABLE_MESSAGE = "storage unavailable";

/**
 * Answers the user message that ends the stored conversation: it was recorded with the turn's
 * `turn.started` (../sessions/session-writer.ts), so the turn starts from storage alone.
 */
export async function runTurn(input: TurnInput): Promise<TurnOutcome> {
  return settle(input, async () => ({ messages: await input.conversation.load(input.sessionId) }));
}

/** A turn parked for approval, continued (after a restart, or in another process). */
export interface ResumeInput extends TurnInput {
  /** The session's events: the turn's steps and the tool results it recorded before it stopped. */
  events: readonly SessionEvent[];
}

/**
 * Continues a turn parked for approval from its stored conversation: the step whose tool round
 * was cut short ends the conversation; calls whose `action.result` was recorded keep it, the
 * others run (the parked one once its decision is in), then the loop goes on as usual.
 */
export async function resumeTurn(input: ResumeInput): Promise<TurnOutcome> {
  // A remote turn is still running where it ran: it is reattached, not replayed.
  if (input.remote) return settle(input, async () => ({ messages: await input.conversation.load(input.sessionId) }), true);
  return settle(input, async () => {
    const parked = await input.conversation.loadParked(input.sessionId);
    if (!parked) throw new Error("the parked step is missing from the stored conversation");
    const ownEvents = input.events.filter((event) => event.turnId === input.turnId);
    const lastStep = ownEvents.findLast((event) => event.type === "step.started");
    if (lastStep?.type !== "step.started") throw new Error("the parked step is missing from the event log");
    const recorded = new Map<string, ToolResultPart>();
    for (const event of ownEvents) {
      if (event.type !== "action.result" || event.index < lastStep.index) continue;
      const { toolCallId, toolName, output, isError } = event.data;
      recorded.set(toolCallId, { type: "tool-result", toolCallId, toolName, output: toModelOutput({ output, isError }) });
    }
    const calls = parked.step.content.filter((part): part is ToolCallPart => part.type === "tool-call");
    return { messages: [...parked.history, parked.step], resume: { stepIndex: lastStep.data.stepIndex, calls, recorded } };
  });
}

/**
 * Where a turn records what its loop does: every step's events go to the session's log, and the
 * conversation (what the model reads back, and what a resumed turn continues from) commits with
 * the event that ends each step and tool round (`TurnEmit`'s `conversation`).
 */
export function turnRecorder(input: Pick<TurnInput, "turnId" | "emit">): LoopRecorder {
  const { turnId } = input;
  const emit = (draft: EventDraft | EventDraft[], conversation?: ConversationMessage[]): Promise<unknown> =>
    input.emit(Array.isArray(draft) ? draft.map((one) => ({ ...one, turnId })) : { ...draft, turnId }, conversation ? { conversation } : undefined);
  return {
    stepStarted: (stepIndex) => emit({ type: "step.started", data: { stepIndex } }),
    textDelta: (delta) => emit({ type: "message.appended", data: { delta } }),
    reasoningDelta: (delta) => emit({ type: "reasoning.appended", data: { delta } }),
    reasoningCompleted: (text) => emit({ type: "reasoning.completed", data: { text } }),
    // The step's text, its end and its message are one commit: after a crash all are stored or none.
    stepCompleted: ({ stepIndex, text, finishReason, durationMs, message }) =>
      emit(
        [
          { type: "message.completed", data: { text, finishReason } },
          { type: "step.completed", data: { stepIndex, durationMs, finishReason } },
        ],
        [message],
      ),
    actionsRequested: (actions) => emit({ type: "actions.requested", data: { actions } }),
    // The step's last result commits with the tool results message.
    actionResult: (result, conversation) => emit({ type: "action.result", data: result }, conversation && [conversation]),
  };
}

// --- internals ---

/** Runs the loop from what `start` loads, to the turn's outcome. */
async function settle(
  input: TurnInput,
  start: () => Promise<Pick<AgentLoopInput, "messages" | "resume">>,
  reattach = false,
): Promise<TurnOutcome> {
  const { signal } = input;
  try {
    const from = await start();
    if (input.remote) {
      const { remote, system, params, maxSteps } = input;
      const done = await remote({ ...from, system, params, maxSteps, signal, emit: input.emit, ...(reattach ? { reattach } : {}) });
      await input.ready;
      return { status: "completed", ...done };
    }
    if ("error" in input.model) throw new Error(input.model.error);
    const model = input.model;
    const { text, usage, recording } = await runAgentLoop({
      model,
      system: input.system,
      params: input.params,
      ...from,
      tools: input.tools,
      signal,
      maxSteps: input.maxSteps,
      subject: "turn",
      recorder: turnRecorder(input),
      lastStepInFlight: true,
      ...(input.firstStepRecorded && !from.resume ? { firstStepRecorded: true } : {}),
    });
    await input.ready;
    // Its `turn.completed` is the controller's to commit, with the session's resting event.
    return { status: "completed", usage, text, model: model.id, ...(recording ? { recording } : {}) };
  } catch (error) {
    if (isTurnSuspended(error)) return { status: "suspended" };
    if (signal.aborted) return { status: "interrupted" };
    // A budget refused the next model call: the turn ends with what it produced (docs/guide/budgets.md).
    if (isBudgetStop(error) && !("error" in input.model)) {
      await input.ready?.catch(() => {});
      return { status: "completed", usage: error.usage, text: error.text, model: input.model.id };
    }
    return { status: "failed", message: failureMessage(error) };
  }
}

function failureMessage(error: unknown): string {
  if (StorageUnavailableError.isError(error)) return STORAGE_UNAVAILABLE_MESSAGE;
  if (error instanceof Error && error.message) return plainMessage(error.message);
  return typeof error === "string" && error ? error : "model call failed";
}
