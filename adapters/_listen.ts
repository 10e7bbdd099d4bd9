/**
 * The port policy of docs/guide/cli.md: 0 takes any free port; a taken default port moves on
 * to the next free one with a notice; a taken explicit port fails with a hint.
 * @module
 */
import { createError } from "../src/base/errors.ts";

export interface PortPolicy {
  /** @default 3000 */
  port: number;
  /** Whether the user chose the port; only the default port may move. */
  explicit: boolean;
  /** How many consecutive ports a taken default port tries. @default 20 */
  attempts?: number;
}

export interface Listening<T> {
  value: T;
  port: number;
  /** Set when the default port was taken and another one is used. */
  notice?: string;
}

/**
 * Calls `listen(port)` per the policy. `listen` must reject with the socket error (code
 * `EADDRINUSE` when the port is taken) and leave nothing open behind.
 */
export async function listenWithPolicy<T>(
  listen: (port: number) => Promise<T>,
  policy: PortPolicy,
): Promise<Listening<T>> {
  const { port, explicit } = policy;
  if (port === 0 || explicit) {
    try {
      return { value: await listen(port), port };
    } catch (error) {
      if (!isAddressInUse(error)) throw error;
      throw createError("serve", `port ${port} is in use; pass --port 0 for any free port`, error);
    }
  }
  const attempts = policy.attempts ?? 20;
  for (let candidate = port; candidate < port + attempts && candidate <= 65_535; candidate++) {
    try {
      const value = await listen(candidate);
      const notice = candidate === port ? undefined : `port ${port} is in use; listening on ${candidate} instead`;
      return { value, port: candidate, notice };
    } catch (error) {
      if (!isAddressInUse(error)) throw error;
    }
  }
  throw createError("serve", `ports ${port}-${port + attempts - 1} are in use; pass --port 0 for any free port`);
}

function isAddressInUse(error: unknown): boolean {
  return typeof error === "object" && error !== null && "code" in error && error.code === "EADDRINUSE";
}
