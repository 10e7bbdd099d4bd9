/**
 * The runners a host sends cloud turns to (docs/design/cloud-runtime.md "Who connects to whom"):
 * round-robin over the configured URLs, skipping one that refused a connection within the last
 * `downMs`, so the next turn after a runner died goes to a live one.
 * @module
 */

export interface RunnerPool {
  /** The runners to try for one turn, best first (every runner, the ones marked down last). */
  order(): string[];
  markDown(url: string): void;
  readonly size: number;
}

export function createRunnerPool(urls: readonly string[], options: { downMs?: number; now?: () => number } = {}): RunnerPool {
  const list = urls.map((url) => url.replace(/\/+$/, ""));
  const downUntil = new Map<string, number>();
  const now = options.now ?? Date.now;
  const downMs = options.downMs ?? 30_000;
  let next = 0;
  return {
    size: list.length,
    order() {
      const start = next;
      next = (next + 1) % Math.max(1, list.length);
      const rotated = [...list.slice(start), ...list.slice(0, start)];
      const t = now();
      const up = rotated.filter((url) => (downUntil.get(url) ?? 0) <= t);
      return [...up, ...rotated.filter((url) => !up.includes(url))];
    },
    markDown(url) {
      downUntil.set(url, now() + downMs);
    },
  };
}
