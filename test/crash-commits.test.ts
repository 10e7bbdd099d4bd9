/**
 * One commit per step of meaning, under a real crash (docs/design/storage.md): clients create
 * sessions and follow up on them against a real `serve` while it is SIGKILLed. Afterwards the
 * store holds every session whole or not at all, every acknowledged create and follow-up, and a
 * rotated token always has its message.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, test } from "vitest";
import { createSqliteStorage } from "../drivers/sqlite/index.ts";
import type { StorageDriver } from "../src/entries/storage.ts";
import { cliEnv, finished, killAfterEach, startServe } from "./_cli.ts";
import type { CliProcess } from "./_cli.ts";
import { eventually } from "./_harness.ts";

const scratch = mkdtempSync(join(tmpdir(), "agent-serve-crash-commits-"));
const env = cliEnv(join(scratch, "config"));
const running: CliProcess[] = killAfterEach();
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

interface Event {
  type: string;
  index: number;
  data: { text?: string };
}

const post = (url: string, body: unknown) =>
  fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });

test("SIGKILL during creates and follow-ups: sessions are whole or absent, rotated tokens have their message", async () => {
  const stateRoot = join(scratch, "state");
  const args = ["examples/hello", "--mode", "single", "--port", "0", "--state-root", stateRoot];
  const server = await startServe(args, env);
  running.push(server);

  const created = new Set<string>();
  /** Per session: the token each acknowledged follow-up returned, and the message it carried. */
  const acked = new Map<string, Map<string, string>>();
  /** Per session: messages of follow-ups sent but not answered when the process died. */
  const inFlight = new Map<string, Set<string>>();
  /** Messages of creates sent but not answered when the process died (their session may exist). */
  const creating = new Set<string>();
  let stop = false;
  let sent = 0;
  const worker = async (w: number) => {
    for (let n = 0; !stop; n++) {
      try {
        creating.add(`create ${w}/${n}`);
        const response = await post(`${server.url}/v1/session`, { message: `create ${w}/${n}` });
        if (response.status !== 200) continue;
        let { sessionId, continuationToken } = (await response.json()) as { sessionId: string; continuationToken: string };
        creating.delete(`create ${w}/${n}`);
        created.add(sessionId);
        acked.set(sessionId, new Map([[continuationToken, `create ${w}/${n}`]]));
        for (let f = 0; f < 3 && !stop; f++) {
          const text = `follow ${w}/${n}/${f}`;
          (inFlight.get(sessionId) ?? inFlight.set(sessionId, new Set()).get(sessionId)!).add(text);
          sent++;
          const next = await post(`${server.url}/v1/session/${sessionId}`, { continuationToken, message: text });
          if (next.status !== 200) break;
          continuationToken = ((await next.json()) as { continuationToken: string }).continuationToken;
          inFlight.get(sessionId)!.delete(text);
          acked.get(sessionId)!.set(continuationToken, text);
        }
      } catch {
        return; // the server is gone
      }
    }
  };
  const workers = Array.from({ length: 8 }, (_, w) => worker(w));
  await eventually(async () => (created.size >= 30 && sent >= 30 ? true : undefined), 20_000, "traffic");
  server.child.kill("SIGKILL");
  expect((await finished(server)).signal).toBe("SIGKILL");
  stop = true;
  await Promise.all(workers);

  const storage = createSqliteStorage({ path: join(stateRoot, "state.db"), readOnly: true });
  try {
    const records = new Map((await storage.entries("sessions/")).filter(([key]) => key.endsWith("/record")).map(([key, value]) => [key.split("/")[1]!, JSON.parse(value) as { continuationToken: string; channel: string }]));
    // Every acknowledged create survived.
    for (const id of created) expect(records.has(id), id).toBe(true);
    for (const [id, record] of records) {
      const events = await readLog(storage, `sessions/${id}/events`);
      // Whole: the record never exists without its first events, indexes contiguous, no duplicates.
      expect(events.map((e) => e.index), id).toEqual(events.map((_, i) => i));
      expect(events[0]?.type, id).toBe("session.started");
      const received = events.filter((e) => e.type === "message.received").map((e) => e.data.text);
      expect(received.length, id).toBeGreaterThanOrEqual(1);
      // Every acknowledged follow-up has its message.
      for (const text of acked.get(id)?.values() ?? []) expect(received, id).toContain(text);
      // The stored token is bound to the session and its message is in the log.
      expect(await storage.get(`continuations/http/${Buffer.from(record.continuationToken).toString("base64url")}`), id).toBe(id);
      const tokenText = acked.get(id)?.get(record.continuationToken);
      if (tokenText !== undefined) expect(received.at(-1), id).toBe(tokenText);
      // A token no client saw: a follow-up, or a create, the kill cut before it answered.
      else expect([...(inFlight.get(id) ?? []), ...(created.has(id) ? [] : creating)], id).toContain(received.at(-1));
    }
    // And no log without its record (a half-written create).
    const logs = new Set<string>();
    for (const key of await storage.list("")) if (key.startsWith("continuations/http/")) logs.add((await storage.get(key))!);
    for (const id of logs) expect(records.has(id), `token of ${id}`).toBe(true);
  } finally {
    await storage.close();
  }

  // The restarted server recovers every interrupted turn.
  const again = await startServe(args, env);
  running.push(again);
  // Every page of the listing (docs/guide/http-api.md "Paging"): the workers may have made hundreds.
  const sessions: Array<{ status: string }> = [];
  for (let cursor: string | null = ""; cursor !== null; ) {
    const query: string = cursor ? `?limit=500&cursor=${encodeURIComponent(cursor)}` : "?limit=500";
    const page = (await (await fetch(`${again.url}/v1/sessions${query}`)).json()) as { sessions: Array<{ status: string }>; nextCursor: string | null };
    sessions.push(...page.sessions);
    cursor = page.nextCursor;
  }
  expect(sessions.length).toBeGreaterThanOrEqual(created.size);
  for (const session of sessions) expect(session.status).not.toMatch(/running|queued/);
  again.child.kill("SIGTERM");
  expect((await finished(again)).code).toBe(0);
}, 90_000);

async function readLog(storage: StorageDriver, log: string): Promise<Event[]> {
  const out: Event[] = [];
  for await (const batch of storage.read(log)) for (const line of batch) out.push(JSON.parse(line) as Event);
  return out;
}
