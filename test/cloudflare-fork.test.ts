/**
 * Forking on Workers (docs/guide/forking.md "Rules"): the fork request reaches the source's
 * Durable Object, the fork is made in an object of its own, which reads the source through the
 * placed storage, and its follow-up runs there; the source is unchanged. A fork at a parked
 * approval keeps its own copy of the call in its object, decided apart from the source's.
 */
import { describe, expect, it } from "vitest";
import { type TestEvent, readEventsUntil } from "./_harness.ts";
import { BEARER, fixtureWorkerForFile } from "./_miniflare.ts";

const fixture = fixtureWorkerForFile("agent-serve-cf-fork-");
const AUTH = { authorization: `Bearer ${BEARER}` };

async function call(path: string, body?: unknown): Promise<Response> {
  const response = await fixture.mf.dispatchFetch(`http://localhost${path}`, {
    method: body === undefined ? "GET" : "POST",
    headers: { ...AUTH, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return response as unknown as Response;
}

const waitingAfter = (count: number) => {
  let seen = 0;
  return (event: TestEvent): boolean => event.type === "session.waiting" && ++seen >= count;
};

describe("forking in workerd", () => {
  it("forks a session into an object of its own and continues it there", async () => {
    const created = (await (await call("/cloud/v1/session", { message: "/reply first" })).json()) as { sessionId: string };
    const source = await readEventsUntil(await call(`/cloud/v1/session/${created.sessionId}/stream`), waitingAfter(1), 10_000);
    const end = source.find((event) => event.type === "turn.completed")!.index;
    const forked = await call(`/cloud/v1/session/${created.sessionId}/fork`, { atIndex: end, message: "/reply on the branch" });
    expect(forked.status).toBe(200);
    const { sessionId } = (await forked.json()) as { sessionId: string };
    expect(sessionId).not.toBe(created.sessionId);
    const events = await readEventsUntil(await call(`/cloud/v1/session/${sessionId}/stream`), waitingAfter(2), 10_000);
    expect(events.slice(0, end + 1).map((event) => event.type)).toEqual(source.slice(0, end + 1).map((event) => event.type));
    expect(events[end + 1]).toMatchObject({ type: "session.forked", data: { sourceSessionId: created.sessionId, atIndex: end } });
    expect((events.findLast((event) => event.type === "message.completed") as unknown as { data: { text: string } }).data.text).toBe("on the branch");
    const again = await (await call(`/cloud/v1/session/${created.sessionId}/events`)).text();
    expect(again.trim().split("\n")).toHaveLength(source.length);
  });

  it("a fork at a parked approval holds its own copy of the call, decided in the fork's object apart from the source's", async () => {
    const created = (await (await call("/cloud/v1/session", { message: '/tool deploy {"target":"prod"}\n/reply deployed it' })).json()) as { sessionId: string };
    const parked = await readEventsUntil(await call(`/cloud/v1/session/${created.sessionId}/stream`), (event) => event.type === "action.approval_requested", 10_000);
    const asked = parked.at(-1)!;
    const callId = asked.data["callId"] as string;
    const forked = await call(`/cloud/v1/session/${created.sessionId}/fork`, { atIndex: asked.index });
    expect(forked.status).toBe(200);
    const { sessionId } = (await forked.json()) as { sessionId: string };
    const listed = (await (await call(`/cloud/v1/session/${sessionId}/approvals`)).json()) as { approvals: Array<{ callId: string }> };
    expect(listed.approvals.map((approval) => approval.callId)).toEqual([callId]);

    expect((await call(`/cloud/v1/session/${sessionId}/approvals/${callId}`, { decision: "deny" })).status).toBe(200);
    const fork = await readEventsUntil(await call(`/cloud/v1/session/${sessionId}/stream`), waitingAfter(1), 10_000);
    expect(fork.find((event) => event.type === "action.result")!.data).toMatchObject({ toolCallId: callId, output: "denied", isError: true });
    // The source's call still waits, and its own decision runs the tool there.
    const still = (await (await call(`/cloud/v1/session/${created.sessionId}/approvals`)).json()) as { approvals: Array<{ callId: string }> };
    expect(still.approvals.map((approval) => approval.callId)).toEqual([callId]);
    expect((await call(`/cloud/v1/session/${created.sessionId}/approvals/${callId}`, { decision: "approve" })).status).toBe(200);
    const source = await readEventsUntil(await call(`/cloud/v1/session/${created.sessionId}/stream`), waitingAfter(1), 10_000);
    expect(source.find((event) => event.type === "action.result")!.data).toMatchObject({ toolCallId: callId, output: "deployed prod", isError: false });
  });
});
