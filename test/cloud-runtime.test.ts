/**
 * The cloud runtime with real processes on loopback (docs/design/cloud-runtime.md): a host
 * (`agent-serve serve --runner …`) and two `agent-serve runner` processes over the same project.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { cliEnv, finished, killAfterEach, spawnCli, startServe, waitForOutput } from "./_cli.ts";
import type { CliProcess } from "./_cli.ts";
import { eventually, fetchEvents } from "./_harness.ts";
import type { TestEvent } from "./_harness.ts";
import { tempProjects } from "./_temp-projects.ts";

const scratch = mkdtempSync(join(tmpdir(), "agent-serve-cloud-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
const SECRET = "a-shared-runner-secret-of-some-length";
const ENV_VALUE = "env-value-9f3c1a";
const env = cliEnv(join(scratch, "config"), { AGENT_SERVE_RUNNER_SECRET: SECRET });
const running: CliProcess[] = killAfterEach();
const write = tempProjects("cloud");

/** A git repository with `file.txt` "one" at tag v1 and "two" on the branch head. */
function fixtureRepo(): string {
  const dir = join(scratch, "fixture");
  mkdirSync(dir, { recursive: true });
  const git = (...args: string[]): void => {
    execFileSync("git", args, { cwd: dir, env: { ...process.env, GIT_AUTHOR_NAME: "t", GIT_AUTHOR_EMAIL: "t@t", GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@t" } });
  };
  git("init", "--quiet");
  writeFileSync(join(dir, "file.txt"), "one\n");
  git("add", ".");
  git("commit", "--quiet", "-m", "one");
  git("tag", "v1");
  writeFileSync(join(dir, "file.txt"), "two\n");
  git("commit", "--quiet", "-am", "two");
  return dir;
}

const repo = fixtureRepo();
const projectDir = write({
  "bot/agent.ts": `export default { runtime: "cloud", cloud: { repos: [{ url: "file://${repo}", startingRef: "v1" }], env: { CLOUD_SECRET: "${ENV_VALUE}" } } };\n`,
  "bot/tools/approve_it.ts": `export default { description: "Needs a human", needsApproval: true, async execute(input) { return { approved: true, input }; } };\n`,
});
// The mount's slug is the project's directory name.
const slug = projectDir.split("/").pop()!;

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const port = (server.address() as { port: number }).port;
      server.close(() => resolve(port));
    });
  });
}

async function startRunner(name: string): Promise<CliProcess & { url: string }> {
  const proc = spawnCli(["runner", projectDir, "--port", "0", "--workdir", join(scratch, `work-${name}`)], env);
  running.push(proc);
  const match = await waitForOutput(proc, /runner listening on (http:\/\/\S+)/);
  return { ...proc, url: match[1]! };
}

async function startHost(runners: string[], extra: string[] = []): Promise<CliProcess & { url: string; base: string }> {
  const port = await freePort();
  const args = [projectDir, "--port", String(port), "--state-root", join(scratch, `state-${port}`), "--no-docs", "--no-playground"];
  for (const url of runners) args.push("--runner", url);
  const host = await startServe([...args, "--public-url", `http://127.0.0.1:${port}`, ...extra], env);
  running.push(host);
  return { ...host, base: `${host.url}/${slug}` };
}

const post = (body: unknown): RequestInit => ({ method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });

async function send(base: string, message: string, sessionId?: string): Promise<string> {
  const response = await fetch(`${base}/v1/session${sessionId ? `/${sessionId}` : ""}`, post({ message }));
  expect(response.status).toBe(200);
  return ((await response.json()) as { sessionId: string }).sessionId;
}

async function until(base: string, sessionId: string, done: (events: TestEvent[]) => boolean, what: string, timeoutMs = 30_000): Promise<TestEvent[]> {
  return eventually(async () => {
    const events = await fetchEvents(base, sessionId);
    return done(events) ? events : undefined;
  }, timeoutMs, what);
}

describe("cloud runtime", () => {
  test("a turn runs on a runner: repo checkout, shell with the cloud env, a server tool approved on the host", async () => {
    const [r1, r2] = await Promise.all([startRunner("a"), startRunner("b")]);
    const host = await startHost([r1.url, r2.url]);
    const message = [
      // The value's length, so the message itself does not hold the value.
      `/tool shell {"command":"cat repos/fixture/file.txt; echo len=\${#CLOUD_SECRET}"}`,
      `/tool approve_it {"what":"ship"}`,
      "/reply done",
    ].join("\n");
    const sessionId = await send(host.base, message);
    const parked = await until(host.base, sessionId, (events) => events.some((e) => e.type === "action.approval_requested"), "approval requested");
    const request = parked.find((e) => e.type === "action.approval_requested")!;
    const callId = (request.data as { callId: string }).callId;
    const decided = await fetch(`${host.base}/v1/session/${sessionId}/approvals/${callId}`, post({ decision: "approve" }));
    expect(decided.status).toBe(200);
    const events = await until(host.base, sessionId, (all) => all.some((e) => e.type === "session.waiting" && all.some((x) => x.type === "turn.completed")), "turn completed");

    const types = events.map((e) => e.type);
    // agent.bound is the turn's first event after turn.started.
    expect(types[types.indexOf("turn.started") + 1]).toBe("agent.bound");
    const bound = events.find((e) => e.type === "agent.bound")!.data as { agentId: string; url: string; runner: string };
    expect([r1.url, r2.url]).toContain(bound.runner);
    expect(bound.url).toBe(`${bound.runner}/v1/runner/sessions/${sessionId}`);

    const results = events.filter((e) => e.type === "action.result").map((e) => e.data as { toolName: string; output: unknown; isError: boolean });
    expect(results[0]).toMatchObject({ toolName: "shell", isError: false });
    expect(JSON.stringify(results[0]!.output)).toContain("one");
    expect(JSON.stringify(results[0]!.output)).toContain(`len=${ENV_VALUE.length}`);
    expect(results[1]).toEqual({ toolCallId: expect.any(String), toolName: "approve_it", isError: false, output: { approved: true, input: { what: "ship" } } });
    // The approval sits between the call's request and its result, as in a local turn.
    const order = events.map((e) => e.type).filter((t) => /^action/.test(t));
    expect(order).toEqual(["actions.requested", "action.result", "actions.requested", "action.approval_requested", "action.approval_resolved", "action.result"]);
    expect(events.filter((e) => e.type === "message.completed").at(-1)!.data).toMatchObject({ text: "done" });

    // The env value reaches the workspace's processes only.
    const info = await (await fetch(`${host.base}/v1/info`)).text();
    for (const text of [JSON.stringify(events), info, host.stdout(), host.stderr(), r1.stdout(), r1.stderr(), r2.stdout(), r2.stderr()]) {
      expect(text).not.toContain(ENV_VALUE);
    }
  });
});
