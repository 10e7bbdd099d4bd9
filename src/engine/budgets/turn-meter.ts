/**
 * One turn's budget meter: every model call and tool run of the turn, its subagents' included,
 * goes through it. Before a call it holds the call's worst case (estimated input plus maximum
 * output) in every scope window; when the call ends it settles what the call used. A tool run is
 * counted before it starts, and the turn's time runs on its clock (./turn-clock.ts). A refused
 * call throws {@link BudgetStop}, which ends the turn as completed (docs/design/budgets.md).
 * @module
 */
import { abortError } from "../../base/abort.ts";
import type { BudgetExceededData } from "../../base/definitions/budgets.ts";
import type { EventDraft } from "../../base/events/vocabulary.ts";
import { randomId } from "../../base/ids.ts";
import { type LanguageModelPort, type ModelStepRequest, type ModelStreamPart, type Usage, addUsage, emptyUsage } from "../../base/ports/model.ts";
import type { StorageDriver } from "../../base/storage/types.ts";
import type { ToolOutcome } from "../../base/definitions/tools.ts";
import { budgetStop, isBudgetStop } from "./budget-stop.ts";
import { type ScopeRef, admit, chargeToolCall, settle } from "./ledger.ts";
import { TurnClock, pause } from "./turn-clock.ts";

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

/** What the meter needs of a turn's tools: a call's run (its `error` set when its input was refused). */
export interface MeteredTools {
  execute(call: { error?: string }, signal: AbortSignal): Promise<ToolOutcome>;
}

/** A unique marker: the work in flight was cut off by the turn's clock. */
const CUT: unique symbol = Symbol("cut");

export class TurnMeter {
  readonly #services: MeterServices;
  readonly #subject: { sessionId: string; principalId: string; turnId: string };
  readonly #turn: TurnMeterHandle;
  /** The turn's running time, and its lease on `seconds` limits (./turn-clock.ts). */
  readonly #clock: TurnClock;
  /** `scope:limit` already recorded as `budget.exceeded` in this turn. */
  readonly #recorded = new Set<string>();
  /** The model behind each metered model this meter made, so none is metered twice. */
  readonly #inner = new WeakMap<LanguageModelPort, LanguageModelPort>();

  constructor(services: MeterServices, subject: { sessionId: string; principalId: string; turnId: string }, turn: TurnMeterHandle) {
    this.#services = services;
    this.#subject = subject;
    this.#turn = turn;
    const { storage, now } = services.options;
    this.#clock = new TurnClock({ storage, now, refs: (at) => services.refs(subject, at) }, (exceeded) => this.#record(exceeded));
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

  /**
   * `tools` with every run counted before it starts (docs/design/budgets.md "Tool calls"). A run a
   * budget refuses, or whose time runs out, gets an error result naming the limit, and the turn's
   * next model call is refused, which ends the turn: the stored conversation stays whole.
   */
  tools<T extends MeteredTools>(tools: T): T {
    const execute = async (call: { error?: string }, signal: AbortSignal): Promise<ToolOutcome> => {
      // A call whose input was refused runs nothing: it is not counted.
      if (call.error !== undefined) return tools.execute(call, signal);
      const refused = await this.#clock.enter(signal);
      if (refused) return refusal(refused);
      try {
        const { storage, now } = this.#services.options;
        const at = now();
        const admission = await chargeToolCall(storage, this.#services.refs(this.#subject, at), this.#clock.take(at), now);
        if (admission.status === "exceeded") {
          await this.#record(admission.exceeded);
          return refusal(admission.exceeded);
        }
        const cut = this.#clock.signal;
        const outcome = await untilCut(tools.execute(call, AbortSignal.any([signal, cut])), cut);
        // A tool that does not stop when told is left to finish on its own; its result is dropped.
        return outcome === CUT ? refusal(this.#clock.stopped!) : outcome;
      } finally {
        await this.#clock.exit();
      }
    };
    return { ...tools, execute };
  }

  async *#stream(model: LanguageModelPort, request: ModelStepRequest, track: Track | undefined): AsyncGenerator<ModelStreamPart> {
    const refuse = (exceeded: BudgetExceededData): Error => budgetStop(exceeded, track?.usage ?? emptyUsage(), track?.lastText ?? "");
    const refused = await this.#clock.enter(request.signal);
    if (refused) throw refuse(refused);
    try {
      const ticket = await this.#admit(model.id, request, refuse);
      const cut = this.#clock.signal;
      let spent: Usage | undefined;
      let text = "";
      const parts = model.stream({ ...request, signal: AbortSignal.any([request.signal, cut]) })[Symbol.asyncIterator]();
      let open = true;
      try {
        for (;;) {
          const next = await untilCut(parts.next(), cut);
          if (next === CUT) {
            // A provider that does not stop when told is left to finish on its own.
            open = false;
            parts.return?.(undefined).catch(() => {});
            throw refuse(this.#clock.stopped!);
          }
          if (next.done) {
            open = false;
            break;
          }
          const part = next.value;
          if (part.type === "text-delta") text += part.delta;
          else if (part.type === "finish") spent = part.usage;
          yield part;
        }
        if (track) track.lastText = text;
      } catch (error) {
        if (cut.aborted && !request.signal.aborted && !isBudgetStop(error)) throw refuse(this.#clock.stopped!);
        throw error;
      } finally {
        // The caller stopped reading (as `for await` would): the provider's stream is closed.
        if (open) await parts.return?.(undefined).catch(() => {});
        // Cut off before its usage came: the estimate of what it read and what it streamed.
        spent ??= { ...emptyUsage(), inputTokens: estimateInputTokens(request), outputTokens: Math.ceil(text.length / 4) };
        if (track) track.usage = addUsage(track.usage, spent);
        await this.#settle(ticket, model.id, spent);
      }
    } finally {
      await this.#clock.exit();
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
      if (this.#clock.stopped) throw refuse(this.#clock.stopped);
      const at = now();
      const refs = this.#services.refs(this.#subject, at);
      const admission = await admit(storage, refs, id, { tokens, costUsd, until: at + HOLD_TTL_MS }, this.#clock.take(at), now);
      if (admission.status === "admitted") return { id, refs };
      if (admission.status === "exceeded") {
        await this.#record(admission.exceeded);
        throw refuse(admission.exceeded);
      }
      // Other calls in flight may leave room when they settle: wait for them, not the limit.
      await pause(Math.min(10 * (attempt + 1), 100), request.signal);
    }
  }

  async #settle(ticket: Ticket, modelId: string, usage: Usage): Promise<void> {
    const { storage, costOf, now } = this.#services.options;
    const at = now();
    // Tool calls are counted when they run (`tools`), not when the model asks for them.
    const spent = { tokens: usage.inputTokens + usage.outputTokens, costUsd: costOf(modelId, usage) ?? 0, toolCalls: 0, seconds: this.#clock.take(at) };
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

/** The error result of a tool run a budget refused or cut off. */
function refusal(exceeded: BudgetExceededData): ToolOutcome {
  return { output: `budget exceeded: the ${exceeded.scope} budget's ${exceeded.limit} limit is used up (${exceeded.used} of ${exceeded.max})`, isError: true };
}

/** `work`, or {@link CUT} as soon as `cut` aborts (at once when it already has). */
function untilCut<T>(work: Promise<T>, cut: AbortSignal): Promise<T | typeof CUT> {
  // Whatever the work ends with after a cut is no one's to handle.
  work.catch(() => {});
  if (cut.aborted) return Promise.resolve(CUT);
  return new Promise<T | typeof CUT>((resolve, reject) => {
    const done = (): void => resolve(CUT);
    cut.addEventListener("abort", done, { once: true });
    work.then(
      (value) => {
        cut.removeEventListener("abort", done);
        resolve(value);
      },
      (error: unknown) => {
        cut.removeEventListener("abort", done);
        reject(error);
      },
    );
  });
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
