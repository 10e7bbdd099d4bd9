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
