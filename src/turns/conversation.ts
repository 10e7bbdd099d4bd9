import type { ConversationMessage } from "../model/types.ts";
import type { StorageDriver } from "../storage/types.ts";

/**
 * The model-facing conversation of a session, kept as its own append-only log of AI SDK-shaped
 * messages: one line per message, appended after every step and tool result.
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
    await this.#storage.append(logName(sessionId), messages.map((message) => JSON.stringify(message)));
  }
}

const logName = (sessionId: string): string => `sessions/${sessionId}/conversation`;
