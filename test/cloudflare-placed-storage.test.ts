/**
 * The placed storage driver of hosts on Workers (drivers/durable-object/placed-storage.ts): each
 * session's data in its own object, the rest in the coordinator, and the outbox that carries a
 * session object's coordinator writes. A coordinator and session objects are modelled in one
 * process (test/_placed-world.ts): real Durable Object drivers on `node:sqlite`, real storage
 * endpoints, real `Request`s between them.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { PlacedStorage } from "../drivers/durable-object/placed-storage.ts";
import { RecordConflictError } from "../src/base/storage/types.ts";
import { World } from "./_placed-world.ts";
import { pollUntil, readAll, testStorageDriver } from "./_storage-tests.ts";

const A = { session: "ses_a" } as const;
const B = { session: "ses_b" } as const;
const C = "coordinator" as const;

for (const [where, here] of [
  ["in a session object (remote to the coordinator)", A],
  ["in the coordinator", C],
] as const) {
  testStorageDriver(`placed ${where}`, async () => {
    const world = new World();
    const driver = await world.placed(here);
    // Another object's host on the same store.
    const other = await world.placed(B);
    return { driver, reopen: () => other, cleanup: () => world.close() };
  });
}

/** A create's commit, as the core makes it (docs/design/storage.md "How the sessions use it"). */
function createBatch(session: string, token: string, record: string) {
  return {
    records: [
      { key: `sessions/${session}/record`, value: record, expected: null },
      { key: `continuations/http/${token}`, value: session },
      { key: `active/${session}`, value: "owner-1" },
    ],
    appends: [{ log: `sessions/${session}/events`, lines: ['{"type":"session.started"}', '{"type":"message.received"}'], expectedIndex: 0 }],
  };
}

describe("placed storage", () => {
  let world: World;
  let inA: PlacedStorage;
  let inB: PlacedStorage;
  let inC: PlacedStorage;

  beforeEach(async () => {
    world = new World();
    [inA, inB, inC] = await Promise.all([world.placed(A), world.placed(B), world.placed(C)]);
  });
  afterEach(() => world.close());

  it("keeps each session's records, logs and turn lease in its own object and the rest in the coordinator", async () => {
    await inA.set("sessions/ses_a/workspace-files", "own");
    await inA.set("active/ses_a", "owner-a");
    await inA.append("sessions/ses_a/events", ["a0"]);
    await inA.append("approvals/ses_a/decisions", ["d0"]);
    expect(await inA.acquireLease("turns/ses_a", "owner-a", 60_000)).toBe(true);
    // Another session's, from session a's object.
    await inA.set("approvals/ses_b/call-1", "parked");
    await inA.append("sessions/ses_b/conversation", ["b0"]);
    expect(await inA.acquireLease("turns/ses_b", "owner-x", 60_000)).toBe(true);
    // Shared things, from a session object and from the coordinator.
    await inA.set("reminders/r1", "due");
    await inC.set("turn-slots/hello", "[]");
    await inA.append("eval-runs/run1/log", ["e0"]);
    expect(await inA.acquireLease("schedules/daily", "owner-a", 60_000)).toBe(true);

    expect(world.records(A)).toEqual({ "active/ses_a": "owner-a", "sessions/ses_a/workspace-files": "own" });
    expect(world.logs(A)).toEqual({ "approvals/ses_a/decisions": ["d0"], "sessions/ses_a/events": ["a0"] });
    expect(world.leases(A)).toEqual({ "turns/ses_a": "owner-a" });
    expect(world.records(B)).toEqual({ "approvals/ses_b/call-1": "parked" });
    expect(world.logs(B)).toEqual({ "sessions/ses_b/conversation": ["b0"] });
    expect(world.leases(B)).toEqual({ "turns/ses_b": "owner-x" });
    expect(world.records(C)).toEqual({ "reminders/r1": "due", "turn-slots/hello": "[]" });
    expect(world.logs(C)).toEqual({ "eval-runs/run1/log": ["e0"] });
    expect(world.leases(C)).toEqual({ "schedules/daily": "owner-a" });

    // Every object reads every name in its home.
    for (const driver of [inA, inB, inC]) {
      expect(await driver.get("sessions/ses_a/workspace-files")).toBe("own");
      expect(await driver.get("approvals/ses_b/call-1")).toBe("parked");
      expect(await driver.get("reminders/r1")).toBe("due");
      expect((await readAll(driver.read("sessions/ses_a/events"))).lines).toEqual(["a0"]);
      expect(await driver.length("sessions/ses_b/conversation")).toBe(1);
      expect(await driver.leaseHolder("turns/ses_a")).toBe("owner-a");
      expect(await driver.acquireLease("turns/ses_b", "owner-y", 60_000)).toBe(false);
      expect(await driver.list("approvals/ses_b/")).toEqual(["approvals/ses_b/call-1"]);
      expect(await driver.list("")).toEqual(["reminders/r1", "turn-slots/hello"]);
    }
    // Active markers: an object sees its own only (start-up recovery asks this way).
    expect(await inA.list("active/")).toEqual(["active/ses_a"]);
    expect(await inB.list("active/")).toEqual([]);
    expect(await inC.list("active/")).toEqual([]);
    expect(await inC.get("active/ses_a")).toBe("owner-a");
  });

  it("commits a create from the session object: its part at home, the binding and the record's mirror in the coordinator", async () => {
    const record = '{"sessionId":"ses_a","status":"running"}';
    expect(await inA.commit(createBatch("ses_a", "tok1", record))).toEqual([0]);

    expect(world.records(A)).toEqual({ "active/ses_a": "owner-1", "sessions/ses_a/mirror-seq": "1", "sessions/ses_a/record": record });
    expect(world.logs(A)).toEqual({ "sessions/ses_a/events": ['{"type":"session.started"}', '{"type":"message.received"}'] });
    expect(world.records(C)).toEqual({ "continuations/http/tok1": "ses_a", "session-mirrors/ses_a": "1", "sessions/ses_a/record": record });
    expect(world.logs(C)).toEqual({});
    expect(world.records(B)).toEqual({});

    // The listing is the coordinator's, from anywhere; the record itself is read at home.
    for (const driver of [inC, inB, inA]) expect(await driver.entries("sessions/")).toEqual([["sessions/ses_a/record", record]]);
    await world.local(C).set("sessions/ses_a/record", "a stale mirror");
    for (const driver of [inC, inB, inA]) {
      expect(await driver.get("sessions/ses_a/record")).toBe(record);
      expect(await driver.get("continuations/http/tok1")).toBe("ses_a");
    }

    // A record update (status change) goes the same way and overwrites the mirror.
    const idle = '{"sessionId":"ses_a","status":"idle"}';
    await inA.commit({ records: [{ key: "sessions/ses_a/record", value: idle, expected: record }], appends: [{ log: "sessions/ses_a/events", lines: ['{"type":"session.waiting"}'], expectedIndex: 2 }] });
    expect(await inB.entries("sessions/")).toEqual([["sessions/ses_a/record", idle]]);
    expect(world.records(C)["session-mirrors/ses_a"]).toBe("2");
    expect(Object.keys(world.records(A)).filter((key) => key.includes("mirror-pending"))).toEqual([]);
    expect(world.warnings).toEqual([]);
  });

  it("keeps the coordinator's part in the outbox while it is unreachable and pushes it later, once", async () => {
    const record = '{"sessionId":"ses_a"}';
    world.refused.add("coordinator");
    expect(await inA.commit(createBatch("ses_a", "tok1", record))).toEqual([0]);
    expect(world.warnings.map((warning) => warning.message)).toEqual([expect.stringMatching(/stay pending/)]);
    expect(world.records(A)).toMatchObject({ "sessions/ses_a/record": record, "sessions/ses_a/mirror-pending/1": expect.any(String) });
    expect(world.records(C)).toEqual({});
    await expect(inA.flushMirror()).rejects.toThrow(/unreachable/);

    // The session object restarts; the coordinator is back: the new instance pushes before it starts.
    world.refused.delete("coordinator");
    world.restart(A);
    const restarted = await world.placed(A);
    expect(world.records(C)).toEqual({ "continuations/http/tok1": "ses_a", "session-mirrors/ses_a": "1", "sessions/ses_a/record": record });
    expect(Object.keys(world.records(A))).toEqual(["active/ses_a", "sessions/ses_a/mirror-seq", "sessions/ses_a/record"]);
    expect(await inC.entries("sessions/")).toEqual([["sessions/ses_a/record", record]]);

    // A follow-up's rotation made while the coordinator is away: flushMirror pushes it once it is back.
    world.refused.add("coordinator");
    await restarted.commit({ records: [{ key: "continuations/http/tok1", value: null }, { key: "continuations/http/tok2", value: "ses_a" }, { key: "sessions/ses_a/record", value: '{"v":2}' }] });
    expect(world.records(C)["continuations/http/tok1"]).toBe("ses_a");
    world.refused.delete("coordinator");
    await restarted.flushMirror();
    expect(world.records(C)).toEqual({ "continuations/http/tok2": "ses_a", "session-mirrors/ses_a": "2", "sessions/ses_a/record": '{"v":2}' });
    // Or the next commit that reaches it takes what is pending along.
    world.refused.add("coordinator");
    await restarted.commit({ records: [{ key: "continuations/http/tok2", value: null }, { key: "continuations/http/tok3", value: "ses_a" }, { key: "sessions/ses_a/record", value: '{"v":3}' }] });
    world.refused.delete("coordinator");
    await restarted.commit({ records: [{ key: "sessions/ses_a/record", value: '{"v":4}' }] });
    expect(world.records(C)).toEqual({ "continuations/http/tok3": "ses_a", "session-mirrors/ses_a": "4", "sessions/ses_a/record": '{"v":4}' });

    // A removal, then a late push of the create's entry: an older seq changes nothing.
    await restarted.commit({
      records: [
        { key: "sessions/ses_a/record", value: null },
        { key: "continuations/http/tok3", value: null },
        { key: "active/ses_a", value: null },
      ],
    });
    expect(world.records(C)).toEqual({ "session-mirrors/ses_a": "5" });
    const replay = { op: "mirror" as const, session: "ses_a", seq: 1, writes: { "sessions/ses_a/record": record, "continuations/http/tok1": "ses_a" } };
    expect(await world.send(C, [replay])).toEqual([{ ok: true, value: false }]);
    expect(world.records(C)).toEqual({ "session-mirrors/ses_a": "5" });
    expect(await inB.entries("sessions/")).toEqual([]);
    expect(await inB.get("continuations/http/tok1")).toBeUndefined();
    expect(world.records(A)).toEqual({ "sessions/ses_a/mirror-seq": "5" });
  });

  it("sends nothing of a cross commit that conflicted, even when a later one sent before it failed succeeds", async () => {
    await inA.commit(createBatch("ses_a", "tok1", "v1"));
    const failing = inA.commit({ records: [{ key: "sessions/ses_a/record", value: "lost", expected: "stale" }, { key: "continuations/http/bad", value: "ses_a" }] });
    const following = inA.commit({ records: [{ key: "sessions/ses_a/record", value: "v2", expected: "v1" }, { key: "continuations/http/good", value: "ses_a" }] });
    await expect(failing).rejects.toSatisfy(RecordConflictError.isError);
    await following;
    expect(world.records(C)).toEqual({ "continuations/http/good": "ses_a", "continuations/http/tok1": "ses_a", "session-mirrors/ses_a": "3", "sessions/ses_a/record": "v2" });
    expect(world.records(A)["sessions/ses_a/record"]).toBe("v2");
  });

  it("applies a cross commit and an S-only append sent right after it in call order, and resolves them in order", async () => {
    const log = "sessions/ses_a/events";
    const seenHere: string[] = [];
    const seenThere: string[] = [];
    const stopHere = inA.follow(log, (first, lines) => lines.forEach((line, i) => seenHere.push(`${first + i}:${line}`)));
    const stopThere = inC.follow(log, (first, lines) => lines.forEach((line, i) => seenThere.push(`${first + i}:${line}`)));
    await inC.length(log); // held back until the coordinator's follow is subscribed
    const resolved: string[] = [];
    const cross = inA.commit(createBatch("ses_a", "tok1", "{}")).then((firsts) => (resolved.push("cross"), firsts));
    const next = inA.append(log, ["e2"], 2).then((first) => (resolved.push("next"), first));
    const last = inA.commit({ records: [{ key: "sessions/ses_a/record", value: '{"v":2}' }], appends: [{ log, lines: ["e3"], expectedIndex: 3 }] });
    expect(await Promise.all([cross, next, last])).toEqual([[0], 2, [3]]);
    expect(resolved).toEqual(["cross", "next"]);
    const expected = ['0:{"type":"session.started"}', '1:{"type":"message.received"}', "2:e2", "3:e3"];
    await pollUntil(async () => seenThere.length === 4, 5_000, "the coordinator's follower");
    expect(seenHere).toEqual(expected);
    expect(seenThere).toEqual(expected);
    expect(await inB.entries("sessions/")).toEqual([["sessions/ses_a/record", '{"v":2}']]);
    stopHere();
    stopThere();
  });

  it("lets a follower in the coordinator see every commit made in the session object, until it unsubscribes", async () => {
    const log = "sessions/ses_a/events";
    const seen: Array<[number, string]> = [];
    const stop = inC.follow(log, (first, lines) => lines.forEach((line, i) => seen.push([first + i, line])));
    await inC.length(log);
    const openFollows = async (): Promise<unknown> => ((await world.send(A, [{ op: "openFollows" }]))[0] as { value: number }).value;
    expect(await openFollows()).toBe(1);
    await inA.append(log, ["a0", "a1"]);
    await inA.commit({ records: [{ key: "sessions/ses_a/record", value: "{}" }], appends: [{ log, lines: ["a2"] }] });
    await inB.append(log, ["from b"]);
    await pollUntil(async () => seen.length === 4, 5_000, "the followed lines");
    expect(seen).toEqual([[0, "a0"], [1, "a1"], [2, "a2"], [3, "from b"]]);
    stop();
    await pollUntil(async () => (await openFollows()) === 0, 5_000, "the follow to end in the session object");
    await inA.append(log, ["after"]);
    expect(seen).toHaveLength(4);
  });

  describe("rejects, writing nothing anywhere,", () => {
    const nothingWritten = (): void => {
      for (const home of [A, B, C]) {
        expect({ records: world.records(home), logs: world.logs(home) }).toEqual({ records: {}, logs: {} });
      }
    };

    it("a commit that writes two sessions", async () => {
      await expect(
        inA.commit({ records: [{ key: "sessions/ses_a/workspace-files", value: "x" }], appends: [{ log: "sessions/ses_b/events", lines: ["x"] }] }),
      ).rejects.toThrow(/cannot span session ses_a \(sessions\/ses_a\/workspace-files\) and session ses_b \(sessions\/ses_b\/events\)/);
      await expect(inC.commit({ records: [{ key: "approvals/ses_a/c1", value: "x" }, { key: "approvals/ses_b/c1", value: "x" }] })).rejects.toThrow(/cannot span/);
      nothingWritten();
    });

    it("a cross commit whose coordinator part compares and sets, or appends", async () => {
      const batch = createBatch("ses_a", "tok1", "{}");
      batch.records[1] = { key: "continuations/http/tok1", value: "ses_a", expected: null } as (typeof batch.records)[1];
      await expect(inA.commit(batch)).rejects.toThrow(/cannot compare-and-set the coordinator's continuations\/http\/tok1/);
      await expect(inA.commit({ ...createBatch("ses_a", "tok1", "{}"), appends: [{ log: "channels/web/outbox", lines: ["x"] }] })).rejects.toThrow(
        /cannot append to the coordinator's log channels\/web\/outbox/,
      );
      nothingWritten();
    });

    it("a commit of a session's and the coordinator's writes from an object that is not that session's", async () => {
      await expect(inB.commit(createBatch("ses_a", "tok1", "{}"))).rejects.toThrow(/one commit from session ses_b cannot span session ses_a .* and coordinator/);
      await expect(inC.commit(createBatch("ses_a", "tok1", "{}"))).rejects.toThrow(/one commit from coordinator cannot span/);
      // A session record alone is mirrored, so only its own object may write it.
      await expect(inC.set("sessions/ses_a/record", "{}")).rejects.toThrow(/cannot span session ses_a \(sessions\/ses_a\/record\) and coordinator \(sessions\/ses_a\/record\)/);
      nothingWritten();
    });
  });
});
