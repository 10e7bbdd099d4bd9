/**
 * A real full disk (docs/design/faults.md): `serve` runs in a sandbox whose state root is a small
 * tmpfs nearly filled by a ballast file. Turns fill it up; the process must stay up, answer
 * writes with 503 `storage_unavailable` and reads as usual, and take writes again once the
 * ballast is removed, without a restart. A read-only state root serves reads and says so at
 * start-up. Both need bubblewrap; where it is missing the tests say they did not run.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, test } from "vitest";
import { cliEnv, finished, killAfterEach, startServe } from "./_cli.ts";
import type { CliProcess } from "./_cli.ts";
import { bwrapProblem, listening, spawnSandboxed } from "./_bwrap.ts";
import { eventually, fetchEvents, readEvents } from "./_harness.ts";

const scratch = mkdtempSync(join(tmpdir(), "agent-serve-disk-"));
const env = cliEnv(join(scratch, "config"));
const running: CliProcess[] = killAfterEach();
const problem = bwrapProblem();
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const TMPFS_BYTES = 4 * 1024 * 1024;
const BALLAST_BYTES = TMPFS_BYTES - 160 * 1024;

const post = (body: unknown): RequestInit => ({ method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });

test("a full tmpfs: the process stays up, writes get 503, reads answer, and writes resume once space is back", async () => {
  if (problem) {
    console.warn(`[storage-full-disk] DID NOT RUN: ${problem}`);
    return;
  }
  const state = join(scratch, "full");
  const ctl = join(scratch, "ctl");
  mkdirSync(state);
  mkdirSync(ctl);
  // The ballast leaves a little room; touching ctl/free removes it (space comes back).
  const script = [
    `head -c ${BALLAST_BYTES} /dev/zero > "${state}/ballast"`,
    `(while [ ! -e "${ctl}/free" ]; do sleep 0.05; done; rm -f "${state}/ballast"; touch "${ctl}/freed") &`,
    `exec sh -c "$SERVE"`,
  ].join("\n");
  const proc = spawnSandboxed(["--size", String(TMPFS_BYTES), "--tmpfs", state], script, ["examples/hello", "--port", "0", "--state-root", state], env);
  running.push(proc);
  const base = `${await listening(proc)}/hello`;

  const first = await fetch(`${base}/v1/session`, post({ message: "/reply before the disk filled" }));
  expect(first.status).toBe(200);
  const { sessionId, continuationToken } = (await first.json()) as { sessionId: string; continuationToken: string };
  await readEvents(await fetch(`${base}/v1/session/${sessionId}/stream`), (event) => event.type === "session.waiting", 10_000);

  // Long streamed replies until the disk is full: some create or turn meets ENOSPC.
  const long = `/reply ${"words that fill the disk ".repeat(400)}`;
  let refused: Response | undefined;
  for (let i = 0; i < 60 && !refused; i++) {
    const response = await fetch(`${base}/v1/session`, post({ message: long }));
    if (response.status !== 200) refused = response;
    else await new Promise((resolve) => setTimeout(resolve, 20));
  }
  expect(refused?.status).toBe(503);
  expect(await refused!.json()).toMatchObject({ ok: false, error: "storage_unavailable" });
  expect(proc.child.exitCode).toBeNull();

  // Reads answer while the disk is full.
  expect((await fetchEvents(base, sessionId)).at(-1)?.type).toBe("session.waiting");
  expect((await fetch(`${base}/v1/sessions`)).status).toBe(200);
  expect((await fetch(`${base}/v1/session/${sessionId}/cost`)).status).toBe(200);
  // As large as the refused create's message: a small write may still fit in the store's free pages.
  const blocked = await fetch(`${base}/v1/session/${sessionId}`, post({ continuationToken, message: long }));
  expect(blocked.status).toBe(503);

  writeFileSync(join(ctl, "free"), "");

  await eventually(async () => (existsSync(join(ctl, "freed")) ? true : undefined), 5000, "the ballast removed");
  const again = await fetch(`${base}/v1/session/${sessionId}`, post({ continuationToken, message: "/reply space is back" }));
  expect(again.status).toBe(200);
  const log = await eventually(async () => {
    const all = await fetchEvents(base, sessionId);
    return all.at(-1)?.type === "session.waiting" && all.some((e) => e.data.text === "space is back") ? all : undefined;
  }, 10_000, "the turn after recovery");
  expect(log.map((event) => event.index)).toEqual(log.map((_, i) => i));

  // Every turn the outage cut ends closed, none stays running. (A create cut between its record
  // and its first event is made all-or-nothing by the storage driver's atomic create.)
  type Row = { sessionId: string; status: string };
  const list = async (): Promise<Row[]> => ((await (await fetch(`${base}/v1/sessions`)).json()) as { sessions: Row[] }).sessions;
  const rows = await eventually(async () => ((await list()).every((row) => row.status !== "running") ? list() : undefined), 30_000, "no session left running").catch(
    async (error: unknown) => {
      // Say which session and what its log holds, with the server's own account.
      for (const row of (await list()).filter((r) => r.status === "running")) {
        const types = (await fetchEvents(base, row.sessionId)).map((e) => e.type).filter((t) => t !== "message.appended");
        console.error(row.sessionId, JSON.stringify(types));
      }
      console.error(proc.stderr().replace(/\n\s+at .*/g, "").slice(-4000));
      throw error;
    },
  );
  for (const row of rows) {
    const all = await fetchEvents(base, row.sessionId);
    expect(all.map((event) => event.index)).toEqual(all.map((_, i) => i));
  }
  expect(proc.child.exitCode).toBeNull();
  proc.child.kill("SIGKILL");
  await finished(proc);
}, 60_000);

test("a read-only state root: events, stream and cost answer, writes get 503, serve warns at start-up", async () => {
  if (problem) {
    console.warn(`[storage-full-disk] DID NOT RUN (read-only root): ${problem}`);
    return;
  }
  const state = join(scratch, "readonly");
  const args = ["examples/hello", "--port", "0", "--state-root", state];
  const writer = await startServe(args, env);
  running.push(writer);
  const created = await fetch(`${writer.url}/hello/v1/session`, post({ message: "/reply stored" }));
  const { sessionId } = (await created.json()) as { sessionId: string };
  await readEvents(await fetch(`${writer.url}/hello/v1/session/${sessionId}/stream`), (event) => event.type === "session.waiting", 10_000);
  writer.child.kill("SIGTERM");
  await finished(writer);

  const proc = spawnSandboxed(["--ro-bind", state, state], `exec sh -c "$SERVE"`, args, env);
  running.push(proc);
  const base = `${await listening(proc)}/hello`;
  expect(proc.stderr()).toMatch(/state root .* is not writable \(EROFS\)/);

  const stored = await fetchEvents(base, sessionId);
  expect(stored.at(-1)?.type).toBe("session.waiting");
  const streamed = await readEvents(await fetch(`${base}/v1/session/${sessionId}/stream`), (event) => event.type === "session.waiting", 10_000);
  expect(streamed).toEqual(stored);
  const cost = await fetch(`${base}/v1/session/${sessionId}/cost`);
  expect(cost.status).toBe(200);
  expect(await cost.json()).toMatchObject({ sessionId });
  const write = await fetch(`${base}/v1/session`, post({ message: "hi" }));
  expect(write.status).toBe(503);
  expect(await write.json()).toMatchObject({ ok: false, error: "storage_unavailable" });
  expect(proc.child.exitCode).toBeNull();
  proc.child.kill("SIGKILL");
  await finished(proc);
}, 60_000);
