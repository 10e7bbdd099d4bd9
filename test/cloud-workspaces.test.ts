/**
 * Runner workspaces do not outlive their sessions (docs/design/cloud-workspaces.md), with real
 * `agent-serve runner` and `serve` processes on loopback: a deleted session's workspace is removed
 * on the runner, a host at start (and at a runner's first turn after it restarted) has the runners
 * drop the workspaces of sessions it no longer has, and a runner at start removes the workspaces no
 * turn used for `--workspace-idle`.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, test, vi } from "vitest";
import { cliEnv, finished, killAfterEach, spawnCli, startServe, waitForOutput } from "./_cli.ts";
import type { CliProcess } from "./_cli.ts";
import { eventually, fetchEvents } from "./_harness.ts";
import { tempProjects } from "./_temp-projects.ts";
import { freePort } from "./_server-process.ts";

// Every test starts several processes on a shared machine.
vi.setConfig({ testTimeout: 120_000 });
const scratch = mkdtempSync(join(tmpdir(), "agent-serve-cloud-ws-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
const SECRET = "a-shared-runner-secret-of-some-length";
const env = cliEnv(join(scratch, "config"), { AGENT_SERVE_RUNNER_SECRET: SECRET });
const running: CliProcess[] = killAfterEach();
const write = tempProjects("cloud-ws");
const projectDir = write({ "bot/agent.ts": `export default { runtime: "cloud" };\n` });
const slug = projectDir.split("/").pop()!;


async function startRunner(workdir: string, extra: string[] = []): Promise<CliProcess & { url: string }> {
  const proc = spawnCli(["runner", projectDir, ...(extra.includes("--port") ? [] : ["--port", "0"]), "--workdir", workdir, ...extra], env);
  running.push(proc);
  const match = await waitForOutput(proc, /runner listening on (http:\/\/\S+)/);
  return { ...proc, url: match[1]! };
}

async function startHost(runner: string, stateRoot: string): Promise<CliProcess & { base: string }> {
  const port = await freePort();
  const host = await startServe([projectDir, "--port", String(port), "--state-root", stateRoot, "--no-docs", "--no-playground", "--runner", runner], env);
  running.push(host);
  return { ...host, base: `${host.url}/${slug}` };
}

/** A session whose one turn ran on the runner, waited for to its end. */
async function session(base: string): Promise<string> {
  const response = await fetch(`${base}/v1/session`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ message: "/reply hi" }) });
  expect(response.status).toBe(200);
  const { sessionId } = (await response.json()) as { sessionId: string };
  await eventually(async () => ((await fetchEvents(base, sessionId)).some((e) => e.type === "session.waiting") ? true : undefined), 30_000, "the turn's end");
  return sessionId;
}

const workspace = (workdir: string, sessionId: string): string => join(workdir, slug, "workspaces", sessionId);
const gone = (path: string, what: string) => eventually(async () => (existsSync(path) ? undefined : true), 20_000, what);

/** A workspace as a runner leaves one, last used `ageMs` ago. */
function plantWorkspace(workdir: string, sessionId: string, ageMs: number): string {
  const dir = workspace(workdir, sessionId);
  mkdirSync(join(dir, ".agent-serve"), { recursive: true });
  writeFileSync(join(dir, "notes.txt"), "left behind\n");
  const marker = join(dir, ".agent-serve", "last-turn");
  writeFileSync(marker, "");
  const at = new Date(Date.now() - ageMs);
  utimesSync(marker, at, at);
  return dir;
}

describe("cloud runner workspaces", () => {
  test("deleting a session removes its workspace on the runner; the other session's stays", async () => {
    const workdir = join(scratch, "work-delete");
    const runner = await startRunner(workdir);
    const host = await startHost(runner.url, join(scratch, "state-delete"));
    const [kept, deleted] = [await session(host.base), await session(host.base)];
    expect(existsSync(workspace(workdir, kept))).toBe(true);
    expect(existsSync(workspace(workdir, deleted))).toBe(true);
    expect((await fetch(`${host.base}/v1/session/${deleted}`, { method: "DELETE" })).status).toBe(200);
    await gone(workspace(workdir, deleted), "the deleted session's workspace to go");
    expect(existsSync(workspace(workdir, kept))).toBe(true);
    await eventually(async () => runner.stdout().includes(`removed the workspace of ${slug}/${deleted}: the session was deleted`) || undefined, 5_000, "the runner's log line");
  });

  test("a host at start has the runner drop the workspaces of sessions it no longer has", async () => {
    const workdir = join(scratch, "work-reconcile");
    const runner = await startRunner(workdir);
    const stateRoot = join(scratch, "state-reconcile");
    const first = await startHost(runner.url, stateRoot);
    const live = await session(first.base);
    first.child.kill("SIGTERM");
    await finished(first);
    // A session deleted while the runner could not be told (or of a store since wiped).
    const orphan = plantWorkspace(workdir, "ses_orphanedworkspace0001", 0);
    await startHost(runner.url, stateRoot);
    await gone(orphan, "the orphaned workspace to go");
    expect(existsSync(workspace(workdir, live))).toBe(true);
  });

  test("a runner that was down when a session was deleted drops its workspace after it restarts, at its next turn", async () => {
    const workdir = join(scratch, "work-restart");
    const port = await freePort();
    const first = await startRunner(workdir, ["--port", String(port)]);
    const host = await startHost(first.url, join(scratch, "state-restart"));
    const deleted = await session(host.base);
    expect(existsSync(workspace(workdir, deleted))).toBe(true);
    first.child.kill("SIGKILL");
    await finished(first);
    expect((await fetch(`${host.base}/v1/session/${deleted}`, { method: "DELETE" })).status).toBe(200);
    await eventually(async () => (host.stdout() + host.stderr()).includes(`did not remove the workspace of ${slug}/${deleted}`) || undefined, 20_000, "the host's warning");
    expect(existsSync(workspace(workdir, deleted))).toBe(true);
    const second = await startRunner(workdir, ["--port", String(port)]);
    expect(second.url).toBe(first.url);
    // The next turn meets a runner with a new id: the host has it drop what it missed.
    const next = await session(host.base);
    await gone(workspace(workdir, deleted), "the missed workspace to go");
    expect(existsSync(workspace(workdir, next))).toBe(true);
  });

  test("a runner at start removes the workspaces no turn used for --workspace-idle, and keeps the others", async () => {
    const workdir = join(scratch, "work-idle");
    const old = plantWorkspace(workdir, "ses_idleworkspace000001", 2 * 60 * 60 * 1000);
    const recent = plantWorkspace(workdir, "ses_freshworkspace00001", 10 * 60 * 1000);
    const runner = await startRunner(workdir, ["--workspace-idle", "1h"]);
    await gone(old, "the idle workspace to go");
    expect(existsSync(recent)).toBe(true);
    // Logged once the sweep is done, which may be a moment after the directory went.
    await eventually(async () => /removed the workspace of \S+\/ses_idleworkspace000001: no turn for 3600000 ms/.test(runner.stdout()) || undefined, 5_000, "the runner's log line");
  });

  test("--workspace-idle must be a duration or 0", async () => {
    const proc = spawnCli(["runner", projectDir, "--port", "0", "--workdir", join(scratch, "work-bad"), "--workspace-idle", "soon"], env);
    running.push(proc);
    expect((await finished(proc)).code).not.toBe(0);
    expect(proc.stderr()).toContain("--workspace-idle must be a duration");
  });
});
