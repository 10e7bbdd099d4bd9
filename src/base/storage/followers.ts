/**
 * In-process live follow, shared by the drivers whose `capabilities.follow` is `"process"`.
 * @module
 */
import type { FollowListener } from "./types.ts";

export class Followers {
  readonly #byLog = new Map<string, Set<FollowListener>>();

  add(log: string, listener: FollowListener): () => void {
    let set = this.#byLog.get(log);
    if (!set) this.#byLog.set(log, (set = new Set()));
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0 && this.#byLog.get(log) === set) this.#byLog.delete(log);
    };
  }

  /** Delivers committed lines; a throwing listener does not keep the others from theirs. */
  publish(log: string, firstIndex: number, lines: readonly string[]): void {
    const set = this.#byLog.get(log);
    if (!set || lines.length === 0) return;
    for (const listener of set) {
      try {
        listener(firstIndex, lines);
      } catch {
        // A follower's failure is its own; the commit it follows has already happened.
      }
    }
  }
}
