/**
 * The admissions and turns of one agent not yet settled, which closing the host waits for
 * (docs/design/foundation.md "Guarantees": a drained turn records its end).
 * @module
 */
export class InFlight {
  readonly #pending = new Set<Promise<unknown>>();

  get size(): number {
    return this.#pending.size;
  }

  /** Counts `work` until it settles; resolves or rejects as it does. */
  track<T>(work: Promise<T>): Promise<T> {
    const settled = work.then(
      () => {},
      () => {},
    );
    this.#pending.add(settled);
    void settled.then(() => this.#pending.delete(settled));
    return work;
  }

  /**
   * Waits until nothing is in flight, including work tracked meanwhile. Past `timeoutMs`,
   * `overdue` runs on every wake (it interrupts what is left).
   */
  async settle(timeoutMs: number, overdue: () => void): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (this.#pending.size > 0) {
      const remaining = deadline - Date.now();
      if (remaining <= 0) overdue();
      let timer: ReturnType<typeof setTimeout> | undefined;
      const tick = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, Math.max(remaining, 0) + 1);
      });
      await Promise.race([Promise.all(this.#pending), tick]);
      clearTimeout(timer);
    }
  }
}
