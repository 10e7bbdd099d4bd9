/**
 * Resolves on the first SIGINT or SIGTERM (or when `signal` aborts). A second signal while the
 * host drains exits at once, so a stuck drain never traps the user.
 */
export function waitForStop(signal?: AbortSignal): Promise<string> {
  if (signal) {
    if (signal.aborted) return Promise.resolve("abort");
    return new Promise((resolve) => signal.addEventListener("abort", () => resolve("abort"), { once: true }));
  }
  return new Promise((resolve) => {
    const onSignal = (name: NodeJS.Signals): void => {
      process.off("SIGINT", onSignal);
      process.off("SIGTERM", onSignal);
      process.once("SIGINT", () => process.exit(130));
      process.once("SIGTERM", () => process.exit(143));
      resolve(name);
    };
    process.on("SIGINT", onSignal);
    process.on("SIGTERM", onSignal);
  });
}

/**
 * An AbortSignal that aborts on `signal` (when given) or else on the first SIGINT or SIGTERM;
 * `dispose` removes the process handlers again.
 */
export function stopSignal(signal?: AbortSignal): { signal: AbortSignal; dispose(): void } {
  const controller = new AbortController();
  if (signal) {
    const onAbort = (): void => controller.abort(signal.reason);
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
    return { signal: controller.signal, dispose: () => signal.removeEventListener("abort", onAbort) };
  }
  const onSignal = (name: NodeJS.Signals): void => controller.abort(new Error(name));
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  return {
    signal: controller.signal,
    dispose() {
      process.off("SIGINT", onSignal);
      process.off("SIGTERM", onSignal);
    },
  };
}
