/**
 * The process inbox on a store whose follow stays in the process but whose leases are shared
 * (sqlite, several processes on one file) is polled only while a line can come
 * (docs/design/processes.md "Forwarding"): an idle process reads nothing.
 */
import { expect, it } from "vitest";
import { ProcessInbox } from "../src/engine/sessions/process-inbox.ts";
import { createMemoryStorage } from "../src/base/storage/memory.ts";
import type { StorageDriver } from "../src/base/storage/types.ts";

/** A memory store that says what sqlite says, counting the inbox's `length` reads. */
function countingStore(): { storage: StorageDriver; reads: () => number } {
  const inner = createMemoryStorage();
  const capabilities = { ...inner.capabilities, follow: "process" as const, sharedLeases: true };
  let reads = 0;
  const storage = new Proxy(inner, {
    get(target, property, receiver) {
      if (property === "capabilities") return capabilities;
      if (property === "length") return (log: string) => (reads++, target.length(log));
      const value = Reflect.get(target, property, receiver) as unknown;
      return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
  return { storage, reads: () => reads };
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(check: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  for (const deadline = Date.now() + timeoutMs; !check(); await pause(10)) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
  }
}

it("reads nothing while the process has no turn, and polls once woken while it has one", async () => {
  const { storage, reads } = countingStore();
  let turns = false;
  const inbox = new ProcessInbox(storage, "p1", async () => "ok", () => turns);
  inbox.start();
  // Starting reads once (lines appended before the start); then nothing more while idle.
  await until(() => reads() >= 1, "the start's read");
  const afterStart = reads();
  await pause(1_000);
  expect(reads()).toBe(afterStart);
  turns = true;
  // What the host does on every session event it writes (src/host/agent-runtime.ts).
  inbox.wake();
  await until(() => reads() >= afterStart + 3, "three polls after the wake");
  await inbox.close();
});

it("answers a request that reaches a process with a turn, across processes that only poll", async () => {
  const { storage } = countingStore();
  const running = new ProcessInbox(storage, "runner", async (request) => `done ${request.op}`, () => true);
  const asking = new ProcessInbox(storage, "asker", async () => null, () => false);
  running.start();
  asking.start();
  // The asker has no turn of its own: it polls for the reply because it waits for one.
  await expect(asking.request("runner", { op: "stop", args: {} }, 5_000)).resolves.toBe("done stop");
  await running.close();
  await asking.close();
});
