/**
 * Per-send `workspaceFiles` between the send that brings them and the turn that writes them into
 * the workspace. Kept in storage under the session, so a queued turn finds them and removing a
 * session's data removes them too.
 * @module
 */
import { KeyedLock } from "../../base/keyed-lock.ts";
import type { StorageDriver } from "../../base/storage/types.ts";
import { pendingFilesKey as key } from "../../base/storage/keys.ts";


export class PendingWorkspaceFiles {
  readonly #storage: StorageDriver;
  readonly #lock = new KeyedLock();

  constructor(storage: StorageDriver) {
    this.#storage = storage;
  }

  /** Adds files for the session's next turn; a later send's file of the same path wins. */
  stage(sessionId: string, files: Record<string, string>): Promise<void> {
    if (Object.keys(files).length === 0) return Promise.resolve();
    return this.#lock.run(sessionId, async () => {
      const current = await this.#read(sessionId);
      await this.#storage.set(key(sessionId), JSON.stringify({ ...current, ...files }));
    });
  }

  /** The staged files, removed from storage; `{}` when none are staged. */
  take(sessionId: string): Promise<Record<string, string>> {
    return this.#lock.run(sessionId, async () => {
      const files = await this.#read(sessionId);
      if (Object.keys(files).length > 0) await this.#storage.delete(key(sessionId));
      return files;
    });
  }

  async #read(sessionId: string): Promise<Record<string, string>> {
    const raw = await this.#storage.get(key(sessionId));
    if (raw === undefined) return {};
    return JSON.parse(raw) as Record<string, string>;
  }
}
