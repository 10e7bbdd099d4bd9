/**
 * A turn's end is sent right behind its last step's events, without waiting for them to be
 * durable, and it never lands without them (docs/design/speed.md "The turn's end behind its last
 * step"): if the step's commit fails, before or after the end was sent, the turn reads as failed,
 * never as completed, and the session still comes to rest.
 */
import { afterAll, beforeAll, expect, test } from "vitest";
import { StorageUnavailableError } from "../src/base/storage/errors.ts";
import { createMemoryStorage } from "../src/base/storage/memory.ts";
import type { CommitBatch, StorageDriver } from "../src/base/storage/types.ts";
import { describeHost, eventsWhen, eventually, expectContiguous, helloOptions, postJson, project, quietLogger } from "./_harness.ts";

const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown): void => void unhandled.push(reason);
beforeAll(() => void process.on("unhandledRejection", onUnhandled));
afterAll(() => void process.off("unhandledRejection", onUnhandled));

const base = "/hello";
type StepFault = "none" | "fail-at-once" | "fail-late";

interface CommitSeen {
  types: string[];
  calledAt: number;
  settledAt?: number;
}

/**
 * Applies writes one after another in call order (as every driver does for one caller), holding
 * each commit that carries `step.completed` for 20 ms first; `fault` decides whether that commit
 * then lands or fails (without being applied).
 */
function holdingStore(inner: StorageDriver): { driver: StorageDriver; commits: CommitSeen[]; setFault(fault: StepFault): void } {
  const commits: CommitSeen[] = [];
  let fault: StepFault = "none";
  let tail: Promise<unknown> = Promise.resolve();
  let clock = 0;
  const unavailable = () => new StorageUnavailableError("[agent-serve] [storage] the store cannot take writes (EIO)");
  const driver = new Proxy(inner, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver) as unknown;
      if (property !== "commit") return value;
      return (batch: CommitBatch) => {
        const types = (batch.appends ?? []).flatMap((append) => append.lines.map((line) => (JSON.parse(line) as { type?: string }).type ?? "?"));
        const seen: CommitSeen = { types, calledAt: clock++ };
        commits.push(seen);
        const isStep = types.includes("step.completed");
        if (isStep && fault === "fail-at-once") {
          seen.settledAt = clock++;
          return Promise.reject(unavailable());
        }
        const run = async (): Promise<number[]> => {
          if (isStep) {
            await new Promise((resolve) => setTimeout(resolve, 20));
            if (fault === "fail-late") throw unavailable();
          }
          return target.commit(batch);
        };
        const result = tail.then(run, run);
        tail = result.catch(() => {});
        return result.finally(() => {
          seen.settledAt = clock++;
        });
      };
    },
  });
  return { driver, commits, setFault: (next) => void (fault = next) };
}

let store: ReturnType<typeof holdingStore>;

describeHost(
  "the turn's end behind its last step",
  () => {
    store = holdingStore(createMemoryStorage());
    return helloOptions({ agents: [{ slug: "hello", project: project(), storage: store.driver }], logger: quietLogger });
  },
  (target) => {
    test("the end is sent before the last step is durable, and lands behind it", async () => {
      const host = target();
      const { sessionId } = await create(host, "/reply hello there");
      const events = await eventsWhen(host, base, sessionId, (all) => all.at(-1)?.type === "session.waiting");
      expect(events.some((event) => event.type === "message.appended")).toBe(true);
      expect(events.map((event) => event.type).filter((type) => type !== "message.appended")).toEqual([
        "session.started",
        "message.received",
        "turn.started",
        "step.started",
        "message.completed",
        "step.completed",
        "turn.completed",
        "session.waiting",
      ]);
      expectContiguous(events);
      const step = store.commits.find((commit) => commit.types.includes("step.completed"))!;
      const end = store.commits.find((commit) => commit.types.includes("turn.completed"))!;
      // Sent while the step's commit was still held, not after it settled.
      expect(end.calledAt).toBeLessThan(step.settledAt!);
      expect(unhandled).toEqual([]);
    });

    for (const fault of ["fail-at-once", "fail-late"] as const) {
      test(`a last step whose commit fails (${fault}) leaves the turn failed, never completed`, async () => {
        const host = target();
        const first = await create(host, "/reply one");
        await eventsWhen(host, base, first.sessionId, (all) => all.at(-1)?.type === "session.waiting");

        store.setFault(fault);
        const response = await host.fetch(`${base}/v1/session/${first.sessionId}`, postJson({ continuationToken: first.continuationToken, message: "/reply two" }));
        expect(response.status).toBe(200);
        const { continuationToken } = (await response.json()) as { continuationToken: string };
        await eventually(async () => (store.commits.some((commit) => commit.types.includes("step.completed") && commit.settledAt !== undefined && commit.calledAt > 8) ? true : undefined), 5000, "the failed step commit");
        store.setFault("none");

        // The turn is closed (as recovery closes a cut turn) and the session rests again.
        const events = await eventsWhen(host, base, first.sessionId, (all) => all.filter((event) => event.type === "session.waiting").length === 2, 10_000);
        const second = events.slice(events.findIndex((event) => event.type === "message.received" && event.index > 2));
        expect(second.map((event) => event.type)).not.toContain("turn.completed");
        expect(second.map((event) => event.type)).not.toContain("step.completed");
        expect(second.filter((event) => event.type === "turn.failed")).toHaveLength(1);
        expect(events.filter((event) => event.type === "turn.completed")).toHaveLength(1);
        expectContiguous(events);

        // The session takes its next turn as usual, once the repair has let go of it.
        await eventually(async () => {
          const again = await host.fetch(`${base}/v1/session/${first.sessionId}`, postJson({ continuationToken, message: "/reply three" }));
          if (again.status === 409) return undefined;
          expect(again.status).toBe(200);
          return true;
        }, 5000, "the follow-up admitted");
        const final = await eventsWhen(host, base, first.sessionId, (all) => all.filter((event) => event.type === "session.waiting").length === 3);
        expect(final.filter((event) => event.type === "message.completed").at(-1)?.data.text).toBe("three");
        expectContiguous(final);
        expect(unhandled).toEqual([]);
      });
    }
  },
);

async function create(host: { fetch: (path: string, init?: RequestInit) => Promise<Response> }, message: string): Promise<{ sessionId: string; continuationToken: string }> {
  const created = await host.fetch(`${base}/v1/session`, postJson({ message }));
  expect(created.status).toBe(200);
  return (await created.json()) as { sessionId: string; continuationToken: string };
}
