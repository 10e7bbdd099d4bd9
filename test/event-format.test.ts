/**
 * The event format's compatibility rule (docs/design/event-format.md): a store written with the
 * earlier shape (test/fixtures/event-format/earlier-store.ndjson: `turn.started` and
 * `turn.completed` without the fields added since) is loaded into a sqlite file and served by
 * the current host over loopback. Its lines come back byte for byte on `/events` and on both
 * streams; what the playground reads (sessions list, cost, approvals) answers; forks at several
 * indexes copy the old lines as they are and go on; a follow-up appends current-shape lines after
 * the old ones.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, expect, it } from "vitest";
import { type NodeServer, serveNode } from "../adapters/node.ts";
import { createSqliteStorage } from "../drivers/sqlite/index.ts";
import { EVENT_FORMAT_VERSION, parseEventLine } from "../src/entries/events.ts";
import type { StorageDriver } from "../src/base/storage/types.ts";
import { createHost } from "../src/host/host.ts";
import type { AgentHost } from "../src/host/types.ts";
import { type TestEvent, eventually, fetchEvents, postJson, project, quietLogger, readEvents } from "./_harness.ts";

const FIXTURE = new URL("./fixtures/event-format/earlier-store.ndjson", import.meta.url);
const SESSION = "ses_EarlierFormatLog0001";

type Dumped = { record: string; value: unknown } | { log: string; lines: unknown[] };
const dump = readFileSync(FIXTURE, "utf8").split("\n").filter(Boolean).map((line) => JSON.parse(line) as Dumped);
const eventLog = dump.find((item): item is Extract<Dumped, { log: string }> => "log" in item && item.log === `sessions/${SESSION}/events`)!;
/** The stored lines as an earlier host wrote them. */
const oldLines = eventLog.lines.map((line) => JSON.stringify(line));
const oldEvents = oldLines.map((line) => JSON.parse(line) as TestEvent);
const record = dump.find((item): item is Extract<Dumped, { record: string }> => "record" in item && item.record === `sessions/${SESSION}/record`)!.value as { continuationToken: string };

const scratch = mkdtempSync(join(tmpdir(), "agent-serve-event-format-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

let storage: StorageDriver;
let host: AgentHost;
let server: NodeServer;
let base: string;

beforeAll(() => {
  // The fixture must be what it says: the earlier shape.
  expect(oldEvents.filter((e) => e.type === "turn.started").map((e) => e.data)).toEqual([{}, {}]);
  expect(oldEvents.filter((e) => e.type === "turn.completed").map((e) => e.data)).toEqual([{}, {}]);
});

let run = 0;
async function serveFixture(): Promise<void> {
  storage = createSqliteStorage({ path: join(scratch, `state-${++run}.db`) });
  for (const item of dump) {
    if ("record" in item) await storage.commit({ records: [{ key: item.record, value: typeof item.value === "string" ? item.value : JSON.stringify(item.value) }] });
    else await storage.commit({ appends: [{ log: item.log, lines: item.lines.map((line) => JSON.stringify(line)) }] });
  }
  const tools = { danger: { description: "Deletes things", needsApproval: true, execute: (input: { what: string }) => `deleted ${input.what}` } };
  host = createHost({ agents: [{ slug: "hello", project: project({ tools }), storage }], logger: quietLogger, drainTimeoutMs: 50 });
  server = await serveNode(host, { port: 0, silent: true });
  base = `${server.url}/hello`;
}

afterEach(async () => {
  await host?.close();
  await server?.close(true);
});

const rawEvents = async (sessionId: string): Promise<string[]> => {
  const response = await fetch(`${base}/v1/session/${sessionId}/events`);
  expect(response.status).toBe(200);
  return (await response.text()).split("\n").filter(Boolean);
};

const settled = (sessionId: string, count: number): Promise<TestEvent[]> =>
  eventually(async () => {
    const events = await fetchEvents(base, sessionId);
    return events.filter((e) => e.type === "session.waiting").length >= count ? events : undefined;
  }, 10_000, `session.waiting #${count} in ${sessionId}`);

it("serves the old lines byte for byte on /events, the NDJSON stream and SSE, and every line parses", async () => {
  await serveFixture();
  expect((await (await fetch(`${base}/v1/meta`)).json()).eventFormat).toBe(EVENT_FORMAT_VERSION);
  expect(await rawEvents(SESSION)).toEqual(oldLines);
  for (const line of oldLines) expect(parseEventLine(line)).toEqual(JSON.parse(line));

  const stream = await fetch(`${base}/v1/session/${SESSION}/stream?startIndex=3`);
  expect(stream.status).toBe(200);
  const streamed = await readEvents(stream, (event) => event.index === oldLines.length - 1);
  expect(streamed.map((event) => JSON.stringify(event))).toEqual(oldLines.slice(3));

  const sse = await fetch(`${base}/v1/session/${SESSION}/stream`, { headers: { accept: "text/event-stream" } });
  expect(sse.headers.get("content-type")).toMatch(/^text\/event-stream/);
  const reader = sse.body!.getReader();
  const decoder = new TextDecoder();
  let text = "";
  while ((text.match(/^data: /gm) ?? []).length < oldLines.length) {
    const { value, done } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
  }
  await reader.cancel();
  const frames = [...text.matchAll(/^id: (\d+)\ndata: (.*)$/gm)].map((match) => ({ id: Number(match[1]), data: match[2] }));
  expect(frames).toEqual(oldLines.map((line, index) => ({ id: index, data: line })));
});

it("answers what the playground reads: the sessions list, cost (unpriced turns) and approvals", async () => {
  await serveFixture();
  const { sessions } = (await (await fetch(`${base}/v1/sessions`)).json()) as { sessions: Array<{ sessionId: string; status: string; turnCount: number }> };
  expect(sessions).toEqual([expect.objectContaining({ sessionId: SESSION, status: "idle", turnCount: 2 })]);
  const cost = await fetch(`${base}/v1/session/${SESSION}/cost`);
  expect(cost.status).toBe(200);
  const body = (await cost.json()) as { sessionId: string; turns: unknown[]; totals: Record<string, unknown> };
  expect(body.sessionId).toBe(SESSION);
  expect(body.turns).toHaveLength(2);
  const approvals = await fetch(`${base}/v1/session/${SESSION}/approvals`);
  expect(await approvals.json()).toEqual({ approvals: [] });
});

it("forks the old log at any index: the old lines copied as they are, then the fork goes on in the current shape", async () => {
  await serveFixture();
  const resolvedAt = oldEvents.findIndex((e) => e.type === "action.result");
  const firstWaiting = oldEvents.findIndex((e) => e.type === "session.waiting");
  for (const atIndex of [2, resolvedAt, firstWaiting, oldEvents.length - 1]) {
    const response = await fetch(`${base}/v1/session/${SESSION}/fork`, postJson({ atIndex, message: `/reply forked at ${atIndex}` }));
    expect(response.status).toBe(200);
    const { sessionId } = (await response.json()) as { sessionId: string };
    // The fork's own `session.waiting`, then the one after its message, past those it copied.
    const events = await settled(sessionId, oldEvents.slice(0, atIndex + 1).filter((e) => e.type === "session.waiting").length + 2);
    // The copied lines are the old ones, with only the session id changed.
    const copied = (await rawEvents(sessionId)).slice(0, atIndex + 1);
    expect(copied).toEqual(oldLines.slice(0, atIndex + 1).map((line) => line.replace(`"sessionId":"${SESSION}"`, `"sessionId":"${sessionId}"`)));
    expect(events.find((e) => e.type === "session.forked")!.data).toEqual({ sourceSessionId: SESSION, atIndex });
    const started = events.filter((e) => e.index > atIndex && e.type === "turn.started");
    expect(started.at(-1)!.data).toEqual({ agentVersion: expect.stringMatching(/^av_[0-9a-f]{16}$/) });
    expect(events.filter((e) => e.type === "message.completed").at(-1)!.data["text"]).toBe(`forked at ${atIndex}`);
    expect(events.at(-1)!.type).toBe("session.waiting");
  }
  // The source is untouched.
  expect(await rawEvents(SESSION)).toEqual(oldLines);
});

it("continues the old session: a follow-up appends current-shape lines after the old ones, with the old conversation as context", async () => {
  await serveFixture();
  const response = await fetch(`${base}/v1/session/${SESSION}`, postJson({ continuationToken: record.continuationToken, message: "/reply carried on" }));
  expect(response.status).toBe(200);
  const events = await settled(SESSION, 3);
  const raw = await rawEvents(SESSION);
  expect(raw.slice(0, oldLines.length)).toEqual(oldLines);
  const fresh = events.slice(oldLines.length);
  expect(fresh[0]!.index).toBe(oldLines.length);
  expect(fresh.map((e) => e.type)).toEqual(["message.received", "turn.started", "step.started", "message.appended", "message.appended", "message.completed", "step.completed", "turn.completed", "session.waiting"]);
  expect(fresh.find((e) => e.type === "turn.started")!.data).toEqual({ agentVersion: expect.stringMatching(/^av_/) });
  expect(fresh.find((e) => e.type === "turn.completed")!.data).toMatchObject({ usage: expect.any(Object), model: "scripted" });
  // The cost route reads old (unpriced) and new turns together.
  const cost = (await (await fetch(`${base}/v1/session/${SESSION}/cost`)).json()) as { turns: unknown[] };
  expect(cost.turns).toHaveLength(3);
});
