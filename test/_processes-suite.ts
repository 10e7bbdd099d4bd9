/**
 * At scale (docs/design/processes.md): three real `agent-serve serve` processes on one shared
 * store (Redis, Postgres), behind a small round-robin HTTP proxy written here, act as one host. A
 * session created on A streams from B, is followed up and stopped from C; a call parked on B is
 * approved on A; a process killed mid-turn leaves no session running and loses nothing
 * acknowledged, and one killed while a call is parked has its turn continued by a survivor; the
 * turn-slot cap holds across processes; a schedule slot fires once. Each store's test file runs it
 * with its own server.
 */
import { request as httpRequest, createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { basename, join } from "node:path";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cliEnv, finished, startServe, type CliProcess } from "./_cli.ts";
import { eventually, type TestEvent } from "./_harness.ts";
import { tempProjects } from "./_temp-projects.ts";

/** A store server the processes share: its `--storage` URL, and how to end it. */
export interface StoreServer {
  url: string;
  close(): Promise<void>;
}

export interface SharedStore {
  /** For the title, e.g. `Redis`. */
  name: string;
  /** Whether the server is installed; `missing` says why not, for the title. */
  available: boolean;
  missing: string;
  start(): Promise<StoreServer>;
}

/**
 * Round robin over the backends, skipping one that refuses the connection (a load balancer's
 * health check, in one line). `x-backend: <i>` pins a request to one backend, so a step can name
 * the process it means; every answer says who served it in `x-served-by`.
 */
function roundRobinProxy(backends: string[]): Promise<{ url: string; server: Server }> {
  let next = 0;
  const forward = (req: IncomingMessage, body: Buffer, res: ServerResponse, attempt: number): void => {
    const pinned = req.headers["x-backend"];
    const index = pinned === undefined ? next++ % backends.length : Number(pinned);
    const target = new URL(req.url ?? "/", backends[index]);
    const upstream = httpRequest(target, { method: req.method, headers: { ...req.headers, host: target.host } }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, { ...answer.headers, "x-served-by": String(index) });
      answer.pipe(res);
    });
    upstream.on("error", () => {
      if (pinned === undefined && attempt < backends.length) return forward(req, body, res, attempt + 1);
      if (!res.headersSent) res.writeHead(502).end();
      else res.destroy();
    });
    res.on("close", () => upstream.destroy());
    upstream.end(body);
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => forward(req, Buffer.concat(chunks), res, 1));
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve({ url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, server })));
}

interface Row {
  sessionId: string;
  status: string;
  channel: string;
  title: string | null;
  createdAt: string;
}

export function describeProcesses(store: SharedStore): void {
  const LEASE_TTL_MS = 1_500;
  const scratch = mkdtempSync(join(tmpdir(), "agent-serve-processes-"));
  const env = cliEnv(join(scratch, "config"), { AGENT_SERVE_LEASE_TTL_MS: String(LEASE_TTL_MS) });
  const project = tempProjects("processes");
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  describe.skipIf(!store.available)(`three serve processes on one ${store.name} behind a round-robin proxy${store.missing}`, () => {
    let server: StoreServer;
    let proxy: { url: string; server: Server };
    let processes: Array<CliProcess & { url: string }>;
    let base: string;
    let startedAt: number;

    beforeAll(async () => {
      server = await store.start();
      const dir = project({
        "bot/agent.ts": `import { defineAgent } from "agent-serve";\nexport default defineAgent({ name: "Scale", concurrency: { maxRunningTurns: 2 } });\n`,
        "bot/schedules/tick.md": `---\ncron: "* * * * *"\n---\n\n/reply tick\n`,
        "bot/tools/danger.ts": `export default { description: "Deletes things", needsApproval: true, execute: (input) => "deleted " + input.what };\n`,
      });
      const args = (i: number) => [dir, "--port", "0", "--storage", server.url, "--state-root", join(scratch, `state-${i}`), "--allow-anonymous", "--accept-unsandboxed-shell", "--no-docs"];
      processes = await Promise.all([0, 1, 2].map((i) => startServe(args(i), env)));
      // Every clock is armed once its process listens; slots before that are not fired (no catch-up).
      startedAt = Date.now();
      proxy = await roundRobinProxy(processes.map((p) => p.url));
      // The agent is mounted under its directory's name.
      base = `${proxy.url}/${basename(dir)}`;
    }, 60_000);
    afterAll(async () => {
      proxy?.server.closeAllConnections();
      await new Promise((resolve) => proxy?.server.close(resolve));
      for (const p of processes ?? []) {
        if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill("SIGKILL");
        await p.exited;
      }
      await server?.close();
    });

    const call = async (path: string, init: RequestInit & { on?: number } = {}): Promise<Response> => {
      const headers = new Headers(init.headers);
      if (init.on !== undefined) headers.set("x-backend", String(init.on));
      if (init.body !== undefined) headers.set("content-type", "application/json");
      return fetch(`${base}${path}`, { ...init, headers });
    };
    const post = (path: string, body: unknown, on?: number) => call(path, { method: "POST", body: JSON.stringify(body), ...(on === undefined ? {} : { on }) });
    const events = async (sessionId: string): Promise<TestEvent[]> => {
      const text = await (await call(`/v1/session/${sessionId}/events`)).text();
      return text.split("\n").filter(Boolean).map((line) => JSON.parse(line) as TestEvent);
    };
    const until = (sessionId: string, done: (all: TestEvent[]) => boolean, timeoutMs = 10_000): Promise<TestEvent[]> =>
      eventually(async () => {
        const all = await events(sessionId);
        return done(all) ? all : undefined;
      }, timeoutMs, `events of ${sessionId}`);
    // One page of up to 500 holds every session this suite makes (docs/guide/http-api.md "Paging").
    const rows = async (): Promise<Row[]> => ((await (await call("/v1/sessions?limit=500")).json()) as { sessions: Row[] }).sessions;

    /** A live NDJSON stream: what it has received so far, and a wait for an event. */
    function stream(sessionId: string, on: number): { received: TestEvent[]; servedBy: Promise<string | null>; waitFor(match: (e: TestEvent) => boolean, timeoutMs?: number): Promise<TestEvent> } {
      const received: TestEvent[] = [];
      const response = call(`/v1/session/${sessionId}/stream`, { on });
      void response.then(async (r) => {
        const decoder = new TextDecoder();
        let buffer = "";
        for await (const chunk of r.body as unknown as AsyncIterable<Uint8Array>) {
          buffer += decoder.decode(chunk, { stream: true });
          let newline: number;
          while ((newline = buffer.indexOf("\n")) >= 0) {
            const line = buffer.slice(0, newline);
            buffer = buffer.slice(newline + 1);
            if (line) received.push(JSON.parse(line) as TestEvent);
          }
        }
      }).catch(() => {});
      return {
        received,
        servedBy: response.then((r) => r.headers.get("x-served-by")),
        waitFor: (match, timeoutMs = 10_000) => eventually(async () => received.find(match), timeoutMs, "a streamed event"),
      };
    }

    it("create on A, stream from B, follow up and stop from C: A runs what C forwarded, every step lands", async () => {
      const created = await post("/v1/session", { message: "/sleep 60000\nfirst" }, 0);
      expect(created.status).toBe(200);
      expect(created.headers.get("x-served-by")).toBe("0");
      const { sessionId, continuationToken } = (await created.json()) as { sessionId: string; continuationToken: string };
      const live = stream(sessionId, 1);
      expect(await live.servedBy).toBe("1");
      await live.waitFor((e) => e.type === "step.started");

      // C forwards the follow-up to A, which preempts its own turn and runs the new message.
      const followed = await post(`/v1/session/${sessionId}`, { continuationToken, message: "/sleep 60000\nsecond" }, 2);
      expect(followed.status).toBe(200);
      await live.waitFor((e) => e.type === "message.received" && e.data["text"] === "/sleep 60000\nsecond");
      await eventually(async () => (live.received.filter((e) => e.type === "step.started").length === 2 ? true : undefined), 10_000, "second step");
      const stopped = await call(`/v1/session/${sessionId}/stop`, { method: "POST", on: 2 });
      expect(stopped.status).toBe(200);
      await live.waitFor((e) => e.type === "session.waiting");

      const all = await events(sessionId);
      expect(live.received).toEqual(all.slice(0, live.received.length));
      expect(all.map((e) => e.index)).toEqual(all.map((_, i) => i));
      expect(all.filter((e) => e.type === "turn.failed").map((e) => e.data)).toEqual([{ message: "turn interrupted" }, { message: "turn interrupted" }]);
      // No session.waiting between the preempted turn and the one that replaced it.
      expect(all.filter((e) => e.type === "session.waiting")).toHaveLength(1);
      expect(all.at(-1)?.type).toBe("session.waiting");
    }, 60_000);

    it("approve on A a call parked on B: B's turn continues with the tool's result", async () => {
      const created = await post("/v1/session", { message: `/tool danger {"what":"prod"}\n/reply all clean` }, 1);
      const { sessionId } = (await created.json()) as { sessionId: string };
      const live = stream(sessionId, 2);
      const requested = await live.waitFor((e) => e.type === "action.approval_requested");
      const callId = requested.data["callId"] as string;
      const listed = (await (await call(`/v1/session/${sessionId}/approvals`, { on: 0 })).json()) as { approvals: Array<{ callId: string; toolName: string }> };
      expect(listed.approvals).toEqual([expect.objectContaining({ callId, toolName: "danger" })]);
      const resolved = await post(`/v1/session/${sessionId}/approvals/${callId}`, { decision: "approve" }, 0);
      expect(resolved.status).toBe(200);
      await live.waitFor((e) => e.type === "session.waiting");
      const result = live.received.find((e) => e.type === "action.result");
      expect(result?.data).toEqual({ toolCallId: callId, toolName: "danger", output: "deleted prod", isError: false });
      expect(live.received.filter((e) => e.type === "message.completed").at(-1)?.data["text"]).toBe("all clean");
      expect(live.received.filter((e) => e.type === "turn.failed")).toEqual([]);
    }, 60_000);

    it("SIGKILL of the process running a turn: within the lease time the turn fails as host restarted, nothing acknowledged is lost", async () => {
      const created = await post("/v1/session", { message: "/sleep 60000\nvictim" }, 0);
      const { sessionId, continuationToken } = (await created.json()) as { sessionId: string; continuationToken: string };
      const others = await Promise.all(
        [1, 2].map(async (on) => (await (await post("/v1/session", { message: `/reply kept ${on}` }, on)).json()) as { sessionId: string }),
      );
      const live = stream(sessionId, 1);
      await live.waitFor((e) => e.type === "step.started");
      const seen = [...live.received];

      const killedAt = Date.now();
      processes[0]!.child.kill("SIGKILL");
      expect((await finished(processes[0]!)).signal).toBe("SIGKILL");
      const failed = await live.waitFor((e) => e.type === "turn.failed", 10 * LEASE_TTL_MS);
      expect(failed.data).toEqual({ message: "host restarted" });
      // The sweep runs every ttl on each survivor; the lease outlives its last renewal by one ttl.
      expect(Date.now() - killedAt).toBeLessThan(4 * LEASE_TTL_MS + 2_000);
      await live.waitFor((e) => e.type === "session.waiting");

      const all = await events(sessionId);
      expect(all.slice(0, seen.length)).toEqual(seen);
      expect(all.map((e) => e.index)).toEqual(all.map((_, i) => i));
      for (const other of others) expect((await until(other.sessionId, (e) => e.at(-1)?.type === "session.waiting")).length).toBeGreaterThan(0);
      const listed = await rows();
      for (const id of [sessionId, ...others.map((o) => o.sessionId)]) expect(listed.find((r) => r.sessionId === id)?.status).toBe("idle");
      // The session takes follow-ups again, through any survivor.
      const again = await post(`/v1/session/${sessionId}`, { continuationToken, message: "after the crash" });
      expect(again.status).toBe(200);
      const done = await until(sessionId, (e) => e.filter((x) => x.type === "session.waiting").length === 2);
      expect(done.filter((e) => e.type === "message.completed").at(-1)?.data["text"]).toBe("echo: after the crash");
    }, 60_000);

    it("holds maxRunningTurns: 2 across the surviving processes as one FIFO with turn.queued positions", async () => {
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) {
        // Long enough that no turn ends while the five are being created, however slow the machine.
        const response = await post("/v1/session", { message: `/sleep 5000\ncapped ${i}` }, 1 + (i % 2));
        expect(response.status).toBe(200);
        const { sessionId } = (await response.json()) as { sessionId: string };
        ids.push(sessionId);
        // The next one joins after this one has its slot or its place in the queue.
        await until(sessionId, (e) => e.some((x) => x.type === "turn.started" || x.type === "turn.queued"));
      }
      const logs = await Promise.all(ids.map((id) => until(id, (e) => e.at(-1)?.type === "session.waiting", 45_000)));
      const queued = logs.map((log) => log.find((e) => e.type === "turn.queued")?.data["position"]);
      expect(queued).toEqual([undefined, undefined, 1, 2, 3]);
      // Never more than two turns at once, across both processes.
      const marks = logs.flatMap((log) => [
        { at: Date.parse(log.find((e) => e.type === "turn.started")!.at), delta: 1 },
        { at: Date.parse(log.find((e) => e.type === "turn.completed")!.at), delta: -1 },
      ]);
      marks.sort((a, b) => a.at - b.at || a.delta - b.delta);
      let now = 0;
      let most = 0;
      for (const mark of marks) most = Math.max(most, (now += mark.delta));
      expect(most).toBe(2);
      for (const log of logs) expect(log.filter((e) => e.type === "turn.failed")).toHaveLength(0);
    }, 60_000);

    it("SIGKILL of the process holding a parked call: the turn continues on a survivor, where approving it completes it", async () => {
      const created = await post("/v1/session", { message: `/tool danger {"what":"stage"}\n/reply parked and done` }, 1);
      const { sessionId } = (await created.json()) as { sessionId: string };
      const live = stream(sessionId, 2);
      const requested = await live.waitFor((e) => e.type === "action.approval_requested");
      const callId = requested.data["callId"] as string;
      processes[1]!.child.kill("SIGKILL");
      expect((await finished(processes[1]!)).signal).toBe("SIGKILL");
      // Once B's lease has expired, C's sweep takes the parked turn over (still parked, not failed).
      await new Promise((resolve) => setTimeout(resolve, 3 * LEASE_TTL_MS));
      expect(live.received.filter((e) => e.type === "turn.failed")).toEqual([]);
      const resolved = await post(`/v1/session/${sessionId}/approvals/${callId}`, { decision: "approve" }, 2);
      expect(resolved.status).toBe(200);
      await live.waitFor((e) => e.type === "session.waiting");
      expect(live.received.find((e) => e.type === "action.result")?.data).toEqual({ toolCallId: callId, toolName: "danger", output: "deleted stage", isError: false });
      expect(live.received.filter((e) => e.type === "turn.failed")).toEqual([]);
      const all = await events(sessionId);
      expect(all.map((e) => e.index)).toEqual(all.map((_, i) => i));
    }, 60_000);

    it("no session stays running, and each schedule slot fired once across the processes", async () => {
      // Wait until at least one minute boundary has passed since the processes started.
      const firstSlot = Math.ceil((startedAt + 1_000) / 60_000) * 60_000;
      const wait = firstSlot + 8_000 - Date.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      const listed = await eventually(async () => {
        const all = await rows();
        return all.every((r) => r.status !== "running" && r.status !== "queued") ? all : undefined;
      }, 20_000, "every session at rest");
      const ticks = listed.filter((r) => r.channel === "schedule" && r.title === "tick");
      const minutes = ticks.map((r) => Math.floor(Date.parse(r.createdAt) / 60_000));
      expect(minutes.length).toBeGreaterThan(0);
      expect(new Set(minutes).size).toBe(minutes.length);
    }, 120_000);
  });
}
