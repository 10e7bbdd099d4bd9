import type { ConversationMessage } from "../../base/ports/model.ts";
import type { LogAppend, StorageDriver } from "../../base/storage/types.ts";
import { missingToolResults, withToolResults } from "./history-repair.ts";
import { conversationLogName as logName } from "../../base/storage/keys.ts";

type AssistantMessage = Extract<ConversationMessage, { role: "assistant" }>;

/** What a call without a recorded result reads as (its turn ended before the result was stored). */
const UNANSWERED = "turn interrupted before the tool result was recorded";

/**
 * The model-facing conversation of a session, kept as its own append-only log of AI SDK-shaped
 * messages: one line per message, committed with the event that ends each step and tool round.
 */
export class ConversationLog {
  readonly #storage: StorageDriver;

  constructor(storage: StorageDriver) {
    this.#storage = storage;
  }

  /** The history, with an error result filled in for any tool call that has none. */
  async load(sessionId: string): Promise<ConversationMessage[]> {
    return withToolResults(await this.#loadStored(sessionId), UNANSWERED);
  }

  /**
   * A turn parked for approval, as stored: its last message is the assistant step whose tool
   * calls wait for results (`step`); `history` is everything before it. Undefined when the
   * conversation does not end that way.
   */
  async loadParked(sessionId: string): Promise<{ history: ConversationMessage[]; step: AssistantMessage } | undefined> {
    const stored = await this.#loadStored(sessionId);
    const step = stored.at(-1);
    if (step?.role !== "assistant" || !step.content.some((part) => part.type === "tool-call")) return undefined;
    return { history: withToolResults(stored.slice(0, -1), UNANSWERED), step };
  }

  /**
   * Records an error result (`reason`) for every tool call without one, so the stored history is
   * whole again (crash recovery). Resolves with the number of calls closed.
   */
  async closeOpenToolCalls(sessionId: string, reason: string, reasons?: ReadonlyMap<string, string>): Promise<number> {
    const missing = missingToolResults(await this.#loadStored(sessionId), reason).map((part) => {
      // A call recovery has its own word for (docs/design/tools.md "Side effects and crashes").
      const own = reasons?.get(part.toolCallId);
      return own === undefined ? part : { ...part, output: { type: "error-text" as const, value: own } };
    });
    if (missing.length > 0) await this.append(sessionId, [{ role: "tool", content: missing }]);
    return missing.length;
  }

  async append(sessionId: string, messages: ConversationMessage[]): Promise<void> {
    if (messages.length === 0) return;
    await this.#storage.commit({ appends: [this.appendWrite(sessionId, messages)] });
  }

  /** The history exactly as stored (a fork copies a prefix of it). */
  stored(sessionId: string): Promise<ConversationMessage[]> {
    return this.#loadStored(sessionId);
  }

  async #loadStored(sessionId: string): Promise<ConversationMessage[]> {
    const messages: ConversationMessage[] = [];
    for await (const batch of this.#storage.read(logName(sessionId))) {
      for (const line of batch) messages.push(JSON.parse(line) as ConversationMessage);
    }
    return messages;
  }

  /** The append of `messages`, for a commit that carries other writes too (a step's events). */
  appendWrite(sessionId: string, messages: ConversationMessage[]): LogAppend {
    return { log: logName(sessionId), lines: messages.map((message) => JSON.stringify(message)) };
  }
}

