/**
 * A store that stops taking writes (a full disk) costs no session and no process
 * (docs/design/faults.md): the turn in flight fails with `turn.failed`, writes get 503
 * `storage_unavailable`, reads go on, and once the store takes writes again everything works
 * without a restart. The driver here injects the failures; test/storage-full-disk.test.ts fills a
 * real tmpfs.
 */
import { afterAll, beforeAll, expect, test } from "vitest";
import { createMemoryStorage } from "../src/base/storage/memory.ts";
import { faultyStorage, type FaultyStorage } from "./_faulty-storage.ts";
import { allEvents, describeHost, eventsWhen, eventually, expectContiguous, helloOptions, postJson, project, quietLogger, readEvents } from "./_harness.ts";

const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown): void => void unhandled.push(reason);
beforeAll(() => void process.on("unhandledRejection", onUnhandled));
afterAll(() => void process.off("unhandledRejection", onUnhandled));

let faults: FaultyStorage;
const base = "/hello";
const LONG = "a long answer streamed in many small deltas ".repeat(20).trim();

describeHost(
  "full store",
  () => {
    faults = faultyStorage(createMemoryStorage());
    return helloOptions({ agents: [{ slug: "hello", project: project(), storage: faults.driver }], logger: quietLogger });
  },
  (target) => {
    test("a turn cut by the outage fails, writes get 503, reads go on, and it all recovers without a restart", async () => {
      const host = target();
      const created = await host.fetch(`${base}/v1/session`, postJson({ message: "/reply hello" }));
      expect(created.status).toBe(200);
      const { sessionId, continuationToken } = (await created.json()) as { sessionId: string; continuationToken: string };
      await eventsWhen(host, base, sessionId, (events) => events.at(-1)?.type === "session.waiting");
      const before = (await allEvents(host, base, sessionId)).length;

      // The disk fills while the reply streams: a few deltas land, then every write fails.
      faults.failWritesAfter(6);
      const followUp = await host.fetch(`${base}/v1/session/${sessionId}`, postJson({ continuationToken, message: `/reply ${LONG}` }));
      expect(followUp.status).toBe(200);
      const token = ((await followUp.json()) as { continuationToken: string }).continuationToken;
      await eventually(async () => (faults.refused > 0 ? true : undefined), 5000, "a refused write");

      // Writes: 503 in the envelope, not 500.
      const create = await host.fetch(`${base}/v1/session`, postJson({ message: "hi" }));
      expect(create.status).toBe(503);
      expect(await create.json()).toMatchObject({ ok: false, error: "storage_unavailable" });
      const more = await host.fetch(`${base}/v1/session/${sessionId}`, postJson({ continuationToken: token, message: "more" }));
      expect(more.status).toBe(503);
      expect(await more.json()).toMatchObject({ ok: false, error: "storage_unavailable" });
      // Reads still answer.
      expect((await host.fetch(`${base}/v1/sessions`)).status).toBe(200);
      expect((await host.fetch(`${base}/v1/session/${sessionId}/cost`)).status).toBe(200);
      const during = await allEvents(host, base, sessionId);
      expect(during.length).toBeGreaterThan(before);
      expect(during.at(-1)?.type).not.toBe("session.waiting");

      faults.recover();
      // The cut turn is closed without a restart (a retry, or the next write, does it).
      const closed = await eventsWhen(host, base, sessionId, (events) => events.at(-1)?.type === "session.waiting", 8000);
      const cut = closed.slice(before);
      expect(cut.filter((event) => event.type === "turn.failed")).toEqual([
        expect.objectContaining({ data: { message: "storage unavailable" } }),
      ]);
      expectContiguous(closed);

      // And the session takes the next turn normally.
      const after = await host.fetch(`${base}/v1/session/${sessionId}`, postJson({ continuationToken: token, message: "/reply back" }));
      expect(after.status).toBe(200);
      const final = await eventsWhen(host, base, sessionId, (events) => events.at(-1)?.type === "session.waiting" && events.length > closed.length);
      expect(final.filter((event) => event.type === "message.completed").at(-1)?.data.text).toBe("back");
      expectContiguous(final);
      expect(unhandled).toEqual([]);
    });

    test("a short outage mid-stream: the same turn records turn.failed and the session waits", async () => {
      const host = target();
      const created = await host.fetch(`${base}/v1/session`, postJson({ message: "/reply first" }));
      const { sessionId, continuationToken } = (await created.json()) as { sessionId: string; continuationToken: string };
      const stream = await host.fetch(`${base}/v1/session/${sessionId}/stream`);
      await readEvents(stream, (event) => event.type === "session.waiting");

      const response = await host.fetch(`${base}/v1/session/${sessionId}`, postJson({ continuationToken, message: `/reply ${LONG}` }));
      expect(response.status).toBe(200);
      // Fail exactly one streamed delta's write; the writes after it go through.
      faults.failNextWrites(1);
      const events = await eventsWhen(host, base, sessionId, (all) => all.filter((event) => event.type === "session.waiting").length === 2);
      const failed = events.filter((event) => event.type === "turn.failed");
      expect(failed.map((event) => event.data)).toEqual([{ message: "storage unavailable" }]);
      expect(events.filter((event) => event.type === "turn.completed")).toHaveLength(1);
      expectContiguous(events);
      expect(unhandled).toEqual([]);
    });

    test("the turn's events land but its resting commit does not: the session still comes to rest", async () => {
      const host = target();
      const created = await host.fetch(`${base}/v1/session`, postJson({ message: "/reply one" }));
      const { sessionId, continuationToken } = (await created.json()) as { sessionId: string; continuationToken: string };
      const status = async (): Promise<string> => {
        const { sessions } = (await (await host.fetch(`${base}/v1/sessions`)).json()) as { sessions: Array<{ sessionId: string; status: string }> };
        return sessions.find((row) => row.sessionId === sessionId)!.status;
      };
      await eventually(async () => ((await status()) === "idle" ? true : undefined), 5000, "the first turn at rest");
      // Appends still fit; the record rewrite that puts the session to rest after turn two does not.
      faults.failRecordsMatching((value) => {
        if (!value.startsWith("{")) return false;
        const record = JSON.parse(value) as { status?: string; turnCount?: number };
        return record.status === "idle" && record.turnCount === 2;
      });
      const response = await host.fetch(`${base}/v1/session/${sessionId}`, postJson({ continuationToken, message: "/reply two" }));
      expect(response.status).toBe(200);
      // The resting event commits with the record (docs/design/storage.md), so neither lands.
      await eventsWhen(host, base, sessionId, (events) => events.filter((event) => event.type === "turn.completed").length === 2);
      await eventually(async () => (faults.refused > 0 ? true : undefined), 5000, "the refused record write");
      expect(await status()).toBe("running");
      expect((await allEvents(host, base, sessionId)).filter((event) => event.type === "session.waiting")).toHaveLength(1);
      faults.recover();
      await eventually(async () => ((await status()) === "idle" ? true : undefined), 8000, "the session at rest");
      const events = await allEvents(host, base, sessionId);
      expect(events.filter((event) => event.type === "turn.completed")).toHaveLength(2);
      expect(events.at(-1)?.type).toBe("session.waiting");
      expectContiguous(events);
      expect(unhandled).toEqual([]);
    });
  },
);
