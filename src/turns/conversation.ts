import type { ConversationMessage } from "../model/types.ts";
import type { LogAppend, StorageDriver } from "../storage/types.ts";

/**
 * The model-facing conversation of a session, kept as its own append-only log of AI SDK-shaped
 * messages: one line per message, committed with the event that ends each step and tool round.
 */
export class ConversationLog {
  readonly #storage: StorageDriver;

  constructor(storage: StorageDriver) {
    this.#storage = storage;
  }

  async load(sessionId: string): Promise<ConversationMessage[]> {
    const messages: ConversationMessage[] = [];
    for await (const batch of this.#storage.read(logName(sessionId))) {
      for (const line of batch) messages.push(JSON.parse(line) as ConversationMessage);
    }
    return messages;
  }

  async append(sessionId: string, messages: ConversationMessage[]): Promise<void> {
    if (messages.length === 0) return;
    await this.#storage.commit({ appends: [this.appendWrite(sessionId, messages)] });
  }

  /** The append of `messages`, for a commit that carries other writes too (a step's events). */
  appendWrite(sessionId: string, messages: ConversationMessage[]): LogAppend {
    return { log: logName(sessionId), lines: messages.map((message) => JSON.stringify(message)) };
  }

}

const logName = (sessionId: string): string => `sessions/${sessionId}/conversation`;
/** The conversation log's storage name (removed with the session). */
export const conversationLogName = logName;
