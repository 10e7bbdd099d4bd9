/**
 * The `agent-serve serve --storage <url>` suite every shared store runs as a real process
 * (docs/guide/storage.md): a session created and streamed on one process is replayed from the
 * store by the next one, which starts with an empty state root; while the store is down requests
 * get 503 `storage_unavailable`, and once it is back the same process carries on; a stream opened
 * on one process shows a turn another one runs.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { cliEnv, finished, killAfterEach, startServe } from "./_cli.ts";
import type { CliProcess } from "./_cli.ts";
import { eventually, fetchEvents, readEvents } from "./_harness.ts";

/** A real store server (test/_postgres-server.ts, test/_redis-server.ts). */
export interface StoreServer {
  url: string;
  stop(): Promise<void>;
  start(): Promise<void>;
  close(): Promise<void>;
}

export interface ServeStorageSuite<S extends StoreServer> {
  /** The store, as titles name it: `Postgres`, `Redis`. */
  name: string;
  /** Whether its server is installed; `missing` says in the title why the suite did not run. */
  installed: boolean;
  missing: string;
  startServer(): Promise<S>;
  /** How long starting the server may take. @default vitest's hook timeout */
  startTimeoutMs?: number;
  /** The `--storage` URL of a namespace of its own on the server. */
  storage(serverUrl: string, namespace: string): string;
  /** More tests of this store, inside the same `describe`, on the same server. */
  more?(context: ServeStorageContext<S>): void;
}

export interface ServeStorageContext<S extends StoreServer> {
  server(): S;
  scratch: string;
  env: NodeJS.ProcessEnv;
  /** Processes killed after each test. */
  running: CliProcess[];
}

export const json = (body: unknown): RequestInit => ({ method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });

export function serveStorageSuite<S extends StoreServer>(suite: ServeStorageSuite<S>): void {
  const scratch = mkdtempSync(join(tmpdir(), `agent-serve-${suite.name.toLowerCase()}-serve-`));
  const env = cliEnv(join(scratch, "config"));
  const running: CliProcess[] = killAfterEach();

  describe.skipIf(!suite.installed)(`serve on ${suite.name}${suite.missing}`, () => {
    let server: S;
    beforeAll(async () => {
      server = await suite.startServer();
    }, suite.startTimeoutMs);
    afterAll(async () => {
      await server?.close();
      rmSync(scratch, { recursive: true, force: true });
    });

  test(`a session streamed on one process is replayed from ${suite.name} after a restart`, async () => {
    const storage = suite.storage(server.url, "e2e");
    const first = await startServe(["examples/hello", "--port", "0", "--state-root", join(scratch, "state-1"), "--storage", storage], env);
    running.push(first);
    const base1 = `${first.url}/hello`;
    const created = await fetch(`${base1}/v1/session`, json({ message: `hello ${suite.name.toLowerCase()}` }));
    expect(created.status).toBe(200);
    const { sessionId } = (await created.json()) as { sessionId: string };
    const streamed = await readEvents(await fetch(`${base1}/v1/session/${sessionId}/stream`), (event) => event.type === "session.waiting", 10_000);
    expect(streamed.map((event) => event.index)).toEqual(streamed.map((_, i) => i));
    expect(streamed.filter((event) => event.type === "message.completed").at(-1)?.data.text).toBe(`echo: hello ${suite.name.toLowerCase()}`);
    first.child.kill("SIGTERM");
    expect((await finished(first)).code).toBe(0);

    // Another state root: nothing of the session is on this disk, only in the store.
    const second = await startServe(["examples/hello", "--port", "0", "--state-root", join(scratch, "state-2"), "--storage", storage], env);
    running.push(second);
    const base2 = `${second.url}/hello`;
    expect(await fetchEvents(base2, sessionId)).toEqual(streamed);
    const replayed = await readEvents(await fetch(`${base2}/v1/session/${sessionId}/stream?startIndex=0`), (event) => event.type === "session.waiting", 10_000);
    expect(replayed).toEqual(streamed);
    const listed = ((await (await fetch(`${base2}/v1/sessions`)).json()) as { sessions: Array<{ sessionId: string; status: string; continuationToken: string }> }).sessions;
    const row = listed.find((r) => r.sessionId === sessionId);
    expect(row?.status).toBe("idle");

    // While the store is down a write is refused with 503, and nothing is half written.
    await server.stop();
    const refused = await fetch(`${base2}/v1/session/${sessionId}`, json({ continuationToken: row!.continuationToken, message: "while down" }));
    expect(refused.status).toBe(503);
    expect(await refused.json()).toMatchObject({ ok: false, error: "storage_unavailable" });
    await server.start();
    await eventually(async () => ((await fetch(`${base2}/v1/sessions`)).status === 200 ? true : undefined), 10_000, "the reconnect");

    const followUp = await fetch(`${base2}/v1/session/${sessionId}`, json({ continuationToken: row!.continuationToken, message: "after the restart" }));
    expect(followUp.status).toBe(200);
    const reply = await readEvents(await fetch(`${base2}/v1/session/${sessionId}/stream?startIndex=${streamed.length}`), (event) => event.type === "session.waiting", 10_000);
    expect(reply[0]?.index).toBe(streamed.length);
    expect(reply.filter((event) => event.type === "message.completed").at(-1)?.data.text).toBe("echo: after the restart");
    second.child.kill("SIGTERM");
    expect((await finished(second)).code).toBe(0);
  }, 60_000);

  test("a stream opened on one process shows, live and gapless, a turn run by another", async () => {
    const storage = suite.storage(server.url, "two");
    const [a, b] = await Promise.all(
      ["a", "b"].map((name) => startServe(["examples/hello", "--port", "0", "--state-root", join(scratch, `two-${name}`), "--storage", storage], env)),
    );
    running.push(a!, b!);
    const created = await fetch(`${a!.url}/hello/v1/session`, json({ message: "/sleep 60000" }));
    expect(created.status).toBe(200);
    const { sessionId, continuationToken } = (await created.json()) as { sessionId: string; continuationToken: string };
    // Opened on B while A's turn sleeps. Only once B has shown that turn's step does a follow-up on A
    // replace it: what A appends from there on (the cut turn's end, the new turn) reaches B through the store.
    let followedUp: Promise<Response> | undefined;
    const live = await readEvents(await fetch(`${b!.url}/hello/v1/session/${sessionId}/stream`), (event) => {
      if (event.type === "step.started") followedUp ??= fetch(`${a!.url}/hello/v1/session/${sessionId}`, json({ continuationToken, message: "after the sleep" }));
      return event.type === "session.waiting";
    }, 15_000);
    expect((await followedUp)?.status, "the stream showed the sleeping turn before it ended").toBe(200);
    expect(live.filter((event) => event.type === "turn.failed").map((event) => event.data)).toEqual([{ message: "turn interrupted" }]);
    expect(live.filter((event) => event.type === "message.completed").map((event) => event.data.text)).toEqual(["echo: after the sleep"]);
    expect(live.map((event) => event.index)).toEqual(live.map((_, i) => i));
    expect(live.map((event) => event.type)).toEqual(expect.arrayContaining(["turn.started", "turn.completed", "session.waiting"]));
    expect(live).toEqual(await fetchEvents(`${a!.url}/hello`, sessionId));
  }, 60_000);

    suite.more?.({ server: () => server, scratch, env, running });
  });
}
