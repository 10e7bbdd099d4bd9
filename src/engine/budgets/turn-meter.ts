/**
 * One turn's budget meter: every model call of the turn, its subagents' included, goes through
 * it. Before a call it holds the call's worst case (estimated input plus maximum output) in every
 * scope window; when the call ends it settles what the call used. A refused call throws
 * {@link BudgetStop}, which ends the turn as completed (docs/design/budgets.md).
 * @module
 */
import { abortError } from "../../base/abort.ts";
import type { BudgetExceededData } from "../../base/definitions/budgets.ts";
import type { EventDraft } from "../../base/events/vocabulary.ts";
import { randomId } from "../../base/ids.ts";
import { type LanguageModelPort, type ModelStepRequest, type ModelStreamPart, type Usage, addUsage, emptyUsage } from "../../base/ports/model.ts";
import type { StorageDriver } from "../../base/storage/types.ts";
import { budgetStop } from "./budget-stop.ts";
import { type ScopeRef, admit, settle } from "./ledger.ts";

/** The output a call is assumed to be able to produce when its model params do not cap it. */
export const DEFAULT_MAX_OUTPUT_TOKENS = 4096;
/**
 * How long a hold outlives its call at most: a process that crashed mid-call leaves its hold,
 * which other turns near the limit wait for until then (docs/design/budgets.md "Holds").
 */
export const HOLD_TTL_MS = 15 * 60_000;

/** What the meter needs of its gate (./gate.ts). */
export interface MeterServices {
  options: {
    storage: StorageDriver;
    costOf: (modelId: string, usage: Usage) => number | null;
    now: () => number;
    ready?: Promise<void>;
  };
  refs(subject: { sessionId: string; principalId: string; turnId: string }, at: number): ScopeRef[];
}

/** The turn a meter is for: its id, where its events go, and its signal. */
export interface TurnMeterHandle {
  turnId: string;
  emit: (draft: EventDraft) => Promise<unknown>;
  signal: AbortSignal;
}

/** The turn's own usage and last text, for the turn's ending when a budget stops it. */
interface Track {
  usage: Usage;
  lastText: string;
}

interface Ticket {
  id: string;
  refs: ScopeRef[];
}

export class TurnMeter {
  readonly #services: MeterServices;
  readonly #subject: { sessionId: string; principalId: string; turnId: string };
  readonly #turn: TurnMeterHandle;
  /** Where the turn's seconds were last counted up to. */
  #checkpoint: number;
  /** `scope:limit` already recorded as `budget.exceeded` in this turn. */
  readonly #recorded = new Set<string>();
  /** The model behind each metered model this meter made, so none is metered twice. */
  readonly #inner = new WeakMap<LanguageModelPort, LanguageModelPort>();

  constructor(services: MeterServices, subject: { sessionId: string; principalId: string; turnId: string }, turn: TurnMeterHandle) {
    this.#services = services;
    this.#subject = subject;
    this.#turn = turn;
    this.#checkpoint = services.options.now();
  }

  /**
   * `model` with every call metered. The turn's own model (`own`) keeps the turn's usage and last
   * text, which the refusal carries so the turn completes with them.
   */
  model(metered: LanguageModelPort, own = false): LanguageModelPort {
    const model = this.#inner.get(metered) ?? metered;
    const track: Track | undefined = own ? { usage: emptyUsage(), lastText: "" } : undefined;
    const wrapped: LanguageModelPort = { id: model.id, stream: (request) => this.#stream(model, request, track) };
    this.#inner.set(wrapped, model);
    return wrapped;
  }

  async *#stream(model: LanguageModelPort, request: ModelStepRequest, track: Track | undefined): AsyncGenerator<ModelStreamPart> {
    const ticket = await this.#admit(model.id, request, (exceeded) => budgetStop(exceeded, track?.usage ?? emptyUsage(), track?.lastText ?? ""));
    let spent = emptyUsage();
    let toolCalls = 0;
    let text = "";
    try {
      for await (const part of model.stream(request)) {
        if (part.type === "tool-call") toolCalls++;
        else if (part.type === "text-delta") text += part.delta;
        else if (part.type === "finish") spent = part.usage;
        yield part;
      }
      if (track) track.lastText = text;
    } finally {
      if (track) track.usage = addUsage(track.usage, spent);
      await this.#settle(ticket, model.id, spent, toolCalls);
    }
  }

  async #admit(modelId: string, request: ModelStepRequest, refuse: (exceeded: BudgetExceededData) => Error): Promise<Ticket> {
    const { storage, costOf, now, ready } = this.#services.options;
    await ready;
    const id = randomId(12);
    const input = estimateInputTokens(request);
    const output = maxOutputTokens(request.params);
    const tokens = input + output;
    const costUsd = costOf(modelId, { inputTokens: input, outputTokens: output, cacheReadTokens: 0, cacheWriteTokens: 0 }) ?? 0;
    for (let attempt = 0; ; attempt++) {
      if (this.#turn.signal.aborted || request.signal.aborted) throw abortError();
      const at = now();
      const refs = this.#services.refs(this.#subject, at);
      const admission = await admit(storage, refs, id, { tokens, costUsd, until: at + HOLD_TTL_MS }, (at - this.#checkpoint) / 1000, now);
      if (admission.status === "admitted") {
        this.#checkpoint = at;
        return { id, refs };
      }
      if (admission.status === "exceeded") {
        this.#checkpoint = at;
        await this.#record(admission.exceeded);
        throw refuse(admission.exceeded);
      }
      // Other calls in flight may leave room when they settle: wait for them, not the limit.
      await pause(Math.min(10 * (attempt + 1), 100), request.signal);
    }
  }

  async #settle(ticket: Ticket, modelId: string, usage: Usage, toolCalls: number): Promise<void> {
    const { storage, costOf, now } = this.#services.options;
    const at = now();
    const seconds = (at - this.#checkpoint) / 1000;
    this.#checkpoint = at;
    const spent = { tokens: usage.inputTokens + usage.outputTokens, costUsd: costOf(modelId, usage) ?? 0, toolCalls, seconds };
    for (const crossed of await settle(storage, ticket.refs, ticket.id, spent, now)) await this.#record(crossed);
  }

  /** Records `budget.exceeded` once per scope and limit in a turn. */
  async #record(exceeded: BudgetExceededData): Promise<void> {
    const key = `${exceeded.scope}:${exceeded.limit}`;
    if (this.#recorded.has(key)) return;
    this.#recorded.add(key);
    await this.#turn.emit({ type: "budget.exceeded", turnId: this.#turn.turnId, data: exceeded });
  }
}

/** A model's `maxOutputTokens` param when it is a positive integer, else the default. */
export function maxOutputTokens(params: Record<string, string>): number {
  const value = Number(params["maxOutputTokens"]);
  return Number.isInteger(value) && value > 0 ? value : DEFAULT_MAX_OUTPUT_TOKENS;
}

/** About four characters a token, over what the call sends: instructions, conversation, tools. */
export function estimateInputTokens(request: Pick<ModelStepRequest, "system" | "messages" | "tools">): number {
  return Math.ceil((request.system.length + JSON.stringify(request.messages).length + JSON.stringify(request.tools).length) / 4);
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
  });
}
