/**
 * docs/design/foundation.md "Guarantees" under a real crash: SIGKILL a serving process mid-turn,
 * restart it on the same state root, and check that nothing observed was lost and nothing stays
 * running.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, test } from "vitest";
import { cliEnv, finished, killAfterEach, startServe } from "./_cli.ts";
import type { CliProcess } from "./_cli.ts";
import { eventually, fetchEvents, readEvents } from "./_harness.ts";
import type { TestEvent } from "./_harness.ts";

const scratch = mkdtempSync(join(tmpdir(), "agent-serve-crash-"));
const env = cliEnv(join(scratch, "config"));
const running: CliProcess[] = killAfterEach();
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

interface SessionRow {
  sessionId: string;
  status: string;
  continuationToken: string;
}

const json = (body: unknown): RequestInit => ({
  method: "POST",
  headers: { "content-type": "application/json" },
  body: JSON.stringify(body),
});

async function sessions(base: string): Promise<SessionRow[]> {
  const response = await fetch(`${base}/v1/sessions`);
  expect(response.status).toBe(200);
  return ((await response.json()) as { sessions: SessionRow[] }).sessions;
}

test("SIGKILL mid-turn: events survive, interrupted turns fail once, follow-ups work", async () => {
  const stateRoot = join(scratch, "state");
  const args = ["examples/hello", "--port", "0", "--state-root", stateRoot];

  const first = await startServe(args, env);
  running.push(first);
  const base1 = `${first.url}/hello`;
  const ids: string[] = [];
  for (let i = 0; i < 3; i++) {
    const response = await fetch(`${base1}/v1/session`, json({ message: "/sleep 5000" }));
    expect(response.status).toBe(200);
    ids.push(((await response.json()) as { sessionId: string }).sessionId);
  }
  const followed = ids[0]!;
  // Every line this follower receives has been shown to a client, so it must survive the crash.
  const stream = await fetch(`${base1}/v1/session/${followed}/stream`);
  const received: TestEvent[] = [];
  const follower = collect(stream, received);
  await eventually(async () => (received.some((event) => event.type === "turn.started") ? true : undefined), 10_000, "turn.started");
  await eventually(async () => {
    const rows = await sessions(base1);
    return ids.every((id) => rows.find((row) => row.sessionId === id)?.status === "running") ? true : undefined;
  }, 10_000, "all three turns running");

  first.child.kill("SIGKILL");
  const killed = await finished(first);
  expect(killed.signal).toBe("SIGKILL");
  await follower;
  expect(received.map((event) => event.type)).toContain("message.received");

  const second = await startServe(args, env);
  running.push(second);
  const base2 = `${second.url}/hello`;

  const after = await fetchEvents(base2, followed);
  for (const seen of received) expect(after[seen.index]).toEqual(seen);

  for (const id of ids) {
    const log = await fetchEvents(base2, id);
    expect(log.map((event) => event.index)).toEqual(log.map((_, i) => i));
    const failed = log.filter((event) => event.type === "turn.failed");
    expect(failed).toHaveLength(1);
    expect(failed[0]?.data).toEqual({ message: "host restarted" });
    const tail = log.slice(log.indexOf(failed[0]!));
    expect(tail.map((event) => event.type)).toEqual(["turn.failed", "session.waiting"]);
  }

  const rows = await sessions(base2);
  for (const id of ids) {
    const row = rows.find((r) => r.sessionId === id);
    expect(row?.status).not.toMatch(/running|queued/);
  }

  const target = rows.find((r) => r.sessionId === ids[1])!;
  const before = (await fetchEvents(base2, target.sessionId)).length;
  const followUp = await fetch(
    `${base2}/v1/session/${target.sessionId}`,
    json({ continuationToken: target.continuationToken, message: "after the crash" }),
  );
  expect(followUp.status).toBe(200);
  expect(await followUp.json()).toMatchObject({ ok: true, sessionId: target.sessionId });
  const reply = await readEvents(
    await fetch(`${base2}/v1/session/${target.sessionId}/stream?startIndex=${before}`),
    (event) => event.type === "session.waiting",
    10_000,
  );
  expect(reply[0]?.index).toBe(before);
  expect(reply.map((event) => event.type)).toContain("turn.completed");
  const final = reply.filter((event) => event.type === "message.completed").at(-1);
  expect(final?.data.text).toBe("echo: after the crash");

  second.child.kill("SIGTERM");
  expect((await finished(second)).code).toBe(0);
}, 90_000);

/** Records every event line until the connection ends (here: when the server is killed). */
async function collect(response: Response, into: TestEvent[]): Promise<void> {
  const decoder = new TextDecoder();
  let buffer = "";
  try {
    for await (const chunk of response.body!) {
      buffer += decoder.decode(chunk, { stream: true });
      let newline: number;
      while ((newline = buffer.indexOf("\n")) >= 0) {
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + 1);
        if (line) into.push(JSON.parse(line) as TestEvent);
      }
    }
  } catch {
    // The connection is reset by the kill; what arrived before is what counts.
  }
}
