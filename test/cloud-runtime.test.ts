/**
 * The cloud runtime with real processes on loopback (docs/design/cloud-runtime.md): a host
 * (`agent-serve serve --runner …`) and two `agent-serve runner` processes over the same project.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, test, vi } from "vitest";
import { cliEnv, finished, killAfterEach, spawnCli, startServe, waitForOutput } from "./_cli.ts";
import type { CliProcess } from "./_cli.ts";
import { eventually, fetchEvents } from "./_harness.ts";
import type { TestEvent } from "./_harness.ts";
import { tempProjects } from "./_temp-projects.ts";
import { signRunnerRequest } from "../src/features/cloud/signing.ts";
import { freePort } from "./_server-process.ts";

// Every test starts several processes on a shared machine.
vi.setConfig({ testTimeout: 120_000 });
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
  "bot/subagents/helper/agent.ts": `export default { description: "Helps", tools: ["read"] };\n`,
  "bot/subagents/helper/instructions.md": "You help.\n",
  "bot/tools/lookup.ts": `export default { description: "Looks up", async execute() { return { found: true }; } };\n`,
  "bot/tools/where_am_i.ts": `export default { description: "Runs in the workspace", execution: "agent", script: "pwd; ls repos" };\n`,
});
// The mount's slug is the project's directory name.
const slug = projectDir.split("/").pop()!;


async function startRunner(name: string): Promise<CliProcess & { url: string }> {
  const proc = spawnCli(["runner", projectDir, "--port", "0", "--workdir", join(scratch, `work-${name}`)], env);
  running.push(proc);
  const match = await waitForOutput(proc, /runner listening on (http:\/\/\S+)/);
  return { ...proc, url: match[1]! };
}

/** A host over `runners`; its server tools reached through `--public-url`, or as given by `tools`. */
async function startHost(runners: string[], tools?: (port: number) => string[]): Promise<CliProcess & { url: string; base: string }> {
  const port = await freePort();
  const args = [projectDir, "--port", String(port), "--state-root", join(scratch, `state-${port}`), "--no-docs", "--no-playground"];
  for (const url of runners) args.push("--runner", url);
  const host = await startServe([...args, ...(tools ? tools(port) : ["--public-url", `http://127.0.0.1:${port}`])], env);
  running.push(host);
  return { ...host, base: `${host.url}/${slug}` };
}

const post = (body: unknown): RequestInit => ({ method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });

const tokens = new Map<string, string>();

/** Starts a session, or follows one up with its current continuation token. */
async function send(base: string, message: string, sessionId?: string): Promise<string> {
  const body = sessionId ? { message, continuationToken: tokens.get(sessionId) } : { message };
  const response = await fetch(`${base}/v1/session${sessionId ? `/${sessionId}` : ""}`, post(body));
  expect(response.status).toBe(200);
  const reply = (await response.json()) as { sessionId?: string; continuationToken: string };
  const id = reply.sessionId ?? sessionId!;
  tokens.set(id, reply.continuationToken);
  return id;
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
      `/tool shell {"command":"cat repos/fixture/file.txt; echo len=\${#CLOUD_SECRET} secretlen=\${#AGENT_SERVE_RUNNER_SECRET}"}`,
      `/tool approve_it {"what":"ship"}`,
      `/tool where_am_i {}`,
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
    // The conversation URL answers a request signed with the shared secret.
    const path = `/v1/runner/sessions/${sessionId}`;
    const shown = await fetch(bound.url, { headers: { authorization: await signRunnerRequest(SECRET, "GET", path, "") } });
    expect(shown.status).toBe(200);
    const lines = (await shown.text()).trim().split("\n").map((line) => JSON.parse(line) as { kind: string });
    expect(lines[0]!.kind).toBe("bound");
    expect(lines.at(-1)!.kind).toBe("end");

    const results = events.filter((e) => e.type === "action.result").map((e) => e.data as { toolName: string; output: unknown; isError: boolean });
    expect(results[0]).toMatchObject({ toolName: "shell", isError: false });
    expect(JSON.stringify(results[0]!.output)).toContain("one");
    expect(JSON.stringify(results[0]!.output)).toContain(`len=${ENV_VALUE.length}`);
    // The runner's own secret is not in the turns' environment.
    expect(JSON.stringify(results[0]!.output)).toContain("secretlen=0");
    expect(results[1]).toEqual({ toolCallId: expect.any(String), toolName: "approve_it", isError: false, output: { approved: true, input: { what: "ship" } } });
    // The agent-execution tool ran its script in the session's workspace on the runner.
    expect(results[2]).toMatchObject({ toolName: "where_am_i", isError: false });
    expect(JSON.stringify(results[2]!.output)).toMatch(new RegExp(`work-[ab]/${slug}/workspaces/${sessionId}.*fixture`));
    // The approval sits between the call's request and its result, as in a local turn.
    const order = events.map((e) => e.type).filter((t) => t.startsWith("action"));
    expect(order).toEqual(["actions.requested", "action.result", "actions.requested", "action.approval_requested", "action.approval_resolved", "action.result", "actions.requested", "action.result"]);
    expect(events.filter((e) => e.type === "message.completed").at(-1)!.data).toMatchObject({ text: "done" });

    // The env value reaches the workspace's processes only.
    const info = await (await fetch(`${host.base}/v1/info`)).text();
    for (const text of [JSON.stringify(events), info, host.stdout(), host.stderr(), r1.stdout(), r1.stderr(), r2.stdout(), r2.stderr()]) {
      expect(text).not.toContain(ENV_VALUE);
    }
  });

  test("a runner SIGKILLed mid-turn fails the turn at once; the next turn goes to the live runner", async () => {
    const [r1, r2] = await Promise.all([startRunner("c"), startRunner("d")]);
    const host = await startHost([r1.url, r2.url]);
    const sessionId = await send(host.base, "/sleep 60000");
    const bound = await until(host.base, sessionId, (events) => events.some((e) => e.type === "step.started"), "the turn running on a runner");
    const runnerUrl = (bound.find((e) => e.type === "agent.bound")!.data as { runner: string }).runner;
    const victim = runnerUrl === r1.url ? r1 : r2;
    const survivor = victim === r1 ? r2 : r1;
    const killedAt = Date.now();
    victim.child.kill("SIGKILL");
    expect((await finished(victim)).signal).toBe("SIGKILL");
    const failed = await until(host.base, sessionId, (events) => events.some((e) => e.type === "turn.failed"), "turn.failed", 15_000);
    // Well within the runner lease (10 s): the broken connection says it at once.
    expect(Date.now() - killedAt).toBeLessThan(10_000);
    expect((failed.find((e) => e.type === "turn.failed")!.data as { message: string }).message).toMatch(new RegExp(`^cloud runner ${runnerUrl} lost`));

    // Both the follow-up and a new session run on the survivor, whichever runner the rotation names first.
    const again = await send(host.base, "/reply after the crash", sessionId);
    expect(again).toBe(sessionId);
    const fresh = await send(host.base, "/reply fresh");
    for (const id of [sessionId, fresh]) {
      const events = await until(host.base, id, (all) => all.filter((e) => e.type === "turn.completed").length === 1, "a completed turn");
      expect((events.findLast((e) => e.type === "agent.bound")!.data as { runner: string }).runner).toBe(survivor.url);
    }
  });

  test("a host killed mid-turn, twice (once while a call waits for approval): it reattaches and no event is lost", async () => {
    const runner = await startRunner("h");
    const port = await freePort();
    const args = [projectDir, "--port", String(port), "--state-root", join(scratch, "state-restart"), "--runner", runner.url, "--public-url", `http://127.0.0.1:${port}`, "--no-docs", "--no-playground"];
    const first = await startServe(args, env);
    running.push(first);
    const base = `${first.url}/${slug}`;
    const message = [`/tool shell {"command":"sleep 3; echo slept"}`, `/tool approve_it {"what":"restart"}`, "/reply survived"].join("\n");
    const sessionId = await send(base, message);
    const before = await until(base, sessionId, (events) => events.some((e) => e.type === "actions.requested"), "shell running");
    first.child.kill("SIGKILL");
    await finished(first);
    const second = await startServe(args, env);
    running.push(second);
    const parked = await until(base, sessionId, (events) => events.some((e) => e.type === "action.approval_requested"), "approval requested after the restart");
    for (const seen of before) expect(parked[seen.index]).toEqual(seen);
    // Killed again while the call waits for its decision: the runner's call is retried by the same id.
    second.child.kill("SIGKILL");
    await finished(second);
    const third = await startServe(args, env);
    running.push(third);
    await waitForOutput(runner, /host attached after line \d+[\s\S]*host attached after line \d+/);
    const callId = (parked.find((e) => e.type === "action.approval_requested")!.data as { callId: string }).callId;
    const decided = await fetch(`${base}/v1/session/${sessionId}/approvals/${callId}`, post({ decision: "approve" }));
    expect(decided.status).toBe(200);
    const events = await until(base, sessionId, (all) => all.some((e) => e.type === "turn.completed" || e.type === "turn.failed"), "the turn's end");
    for (const seen of parked) expect(events[seen.index]).toEqual(seen);
    expect(events.map((e) => e.index)).toEqual(events.map((_, i) => i));
    const types = events.map((e) => e.type);
    expect(types).not.toContain("turn.failed");
    expect(types.filter((t) => t === "agent.bound")).toHaveLength(1);
    expect(types.filter((t) => t === "action.approval_requested")).toHaveLength(1);
    const results = events.filter((e) => e.type === "action.result").map((e) => e.data as { toolName: string; output: unknown });
    expect(results.map((r) => r.toolName)).toEqual(["shell", "approve_it"]);
    expect(JSON.stringify(results[0]!.output)).toContain("slept");
    expect(events.filter((e) => e.type === "message.completed").at(-1)!.data).toMatchObject({ text: "survived" });
  });

  test("a runner that hangs (SIGSTOP) fails its turn after the 10 s runner lease", async () => {
    const runner = await startRunner("i");
    const host = await startHost([runner.url]);
    const sessionId = await send(host.base, "/sleep 60000");
    await until(host.base, sessionId, (events) => events.some((e) => e.type === "step.started"), "the turn running");
    const stoppedAt = Date.now();
    runner.child.kill("SIGSTOP");
    try {
      const events = await until(host.base, sessionId, (all) => all.some((e) => e.type === "turn.failed"), "turn.failed", 40_000);
      expect((events.find((e) => e.type === "turn.failed")!.data as { message: string }).message).toBe(`cloud runner ${runner.url} lost: no word for 10000 ms`);
      const took = Date.now() - stoppedAt;
      expect(took).toBeGreaterThanOrEqual(9_000);
      expect(took).toBeLessThan(30_000);
    } finally {
      runner.child.kill("SIGCONT");
    }
  });

  test("stop mid-turn interrupts the runner's turn as a local one", async () => {
    const runner = await startRunner("e");
    const host = await startHost([runner.url]);
    const sessionId = await send(host.base, `/tool shell {"command":"sleep 30; echo never"}`);
    await until(host.base, sessionId, (events) => events.some((e) => e.type === "actions.requested"), "shell running");
    const stopped = await fetch(`${host.base}/v1/session/${sessionId}/stop`, { method: "POST" });
    expect(stopped.status).toBe(200);
    const events = await until(host.base, sessionId, (all) => all.some((e) => e.type === "turn.failed"), "turn.failed");
    expect(events.find((e) => e.type === "turn.failed")!.data).toEqual({ message: "turn interrupted" });
    await waitForOutput(runner, new RegExp(`of ${sessionId} stopped`));

    // A follow-up preempts a running cloud turn as it does a local one (admission "preempt").
    await send(host.base, "/sleep 60000", sessionId);
    await until(host.base, sessionId, (all) => all.filter((e) => e.type === "agent.bound").length === 2 && all.at(-1)!.type !== "agent.bound", "the second turn running");
    await send(host.base, "/reply third", sessionId);
    const after = await until(host.base, sessionId, (all) => all.some((e) => e.type === "turn.completed"), "the third turn");
    expect(after.filter((e) => e.type === "turn.failed").map((e) => e.data)).toEqual([{ message: "turn interrupted" }, { message: "turn interrupted" }]);
    expect(after.filter((e) => e.type === "message.completed").at(-1)!.data).toMatchObject({ text: "third" });
  });

  test("the turn cap (maxRunningTurns) counts cloud turns: the second waits its turn", async () => {
    const capped = write({ "bot/agent.ts": `export default { runtime: "cloud", cloud: {}, concurrency: { maxRunningTurns: 1 } };\n` });
    const runner = spawnCli(["runner", capped, "--port", "0", "--workdir", join(scratch, "work-cap")], env);
    running.push(runner);
    const runnerUrl = (await waitForOutput(runner, /runner listening on (http:\/\/\S+)/))[1]!;
    const host = await startServe([capped, "--port", "0", "--state-root", join(scratch, "state-cap"), "--runner", runnerUrl, "--no-docs", "--no-playground"], env);
    running.push(host);
    const base = `${host.url}/${capped.split("/").pop()}`;
    const first = await send(base, "/sleep 1500\n/reply first");
    await until(base, first, (all) => all.some((e) => e.type === "agent.bound"), "the first turn on the runner");
    const second = await send(base, "/reply second");
    const events = await until(base, second, (all) => all.some((e) => e.type === "turn.completed"), "the second turn");
    expect(events.find((e) => e.type === "turn.queued")?.data).toEqual({ position: 1 });
    const firstEvents = await fetchEvents(base, first);
    const firstDone = Date.parse(firstEvents.find((e) => e.type === "turn.completed")!.at);
    expect(Date.parse(events.find((e) => e.type === "agent.bound")!.at)).toBeGreaterThanOrEqual(firstDone);
  });
});

describe("runner authentication and isolation", () => {
  test("the runner accepts only signed requests; the tools endpoint refuses a forged turn credential", async () => {
    const runner = await startRunner("f");
    const unsigned = await fetch(`${runner.url}/v1/runner/turns`, post({ protocol: 1 }));
    expect(unsigned.status).toBe(401);
    const forged = await fetch(`${runner.url}/v1/runner/turns`, {
      ...post({ protocol: 1 }),
      headers: { "content-type": "application/json", authorization: `AgentServe-Runner ts=${Date.now()},sig=${"0".repeat(64)}` },
    });
    expect(forged.status).toBe(401);
    const transcript = await fetch(`${runner.url}/v1/runner/sessions/ses_abc`);
    expect(transcript.status).toBe(401);

    const host = await startHost([runner.url]);
    const bogus = await fetch(`${host.base}/v1/mcp/tools`, {
      ...post({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", authorization: "Bearer cst.eyJ9.00" },
    });
    expect(bogus.status).toBe(401);
  });

  test("sessions get separate workspaces on the runner; subagents run there too; --cloud-tools-url", async () => {
    const runner = await startRunner("g");
    const host = await startHost([runner.url], (port) => ["--cloud-tools-url", `http://127.0.0.1:${port}/${slug}/v1/mcp/tools`]);
    const a = await send(host.base, `/tool edit {"path":"mine.txt","newText":"a's"}\n/reply ok`);
    await until(host.base, a, (events) => events.some((e) => e.type === "turn.completed"), "a done");
    const b = await send(host.base, `/tool read {"path":"mine.txt"}\n/reply ok`);
    const events = await until(host.base, b, (all) => all.some((e) => e.type === "turn.completed"), "b done");
    expect(events.find((e) => e.type === "action.result")!.data).toMatchObject({ toolName: "read", isError: true });
    const escape = await send(host.base, `/tool read {"path":"../${a}/mine.txt"}\n/reply ok`);
    const escaped = await until(host.base, escape, (all) => all.some((e) => e.type === "turn.completed"), "escape done");
    expect(escaped.find((e) => e.type === "action.result")!.data).toMatchObject({ toolName: "read", isError: true });
    // Instructions and the agent-tool catalog come before the first prompt (the scripted model
    // echoes every line of it), on every turn, and not into the stored message.
    const echoed = await send(host.base, "hello there");
    const echo = await until(host.base, echoed, (all) => all.some((e) => e.type === "turn.completed"), "echo done");
    expect((echo.find((e) => e.type === "message.completed")!.data as { text: string }).text).toBe(
      "echo: Be brief.\n\nAgent tools (they run in your workspace):\n- where_am_i: Runs in the workspace\n\nhello there",
    );
    expect(echo.find((e) => e.type === "message.received")!.data).toEqual({ text: "hello there" });
    const looked = await send(host.base, `/tool lookup {}\n/reply ok`);
    const lookup = await until(host.base, looked, (all) => all.some((e) => e.type === "turn.completed"), "lookup done");
    expect(lookup.find((e) => e.type === "action.result")!.data).toMatchObject({ toolName: "lookup", isError: false, output: { found: true } });
    const delegated = await send(host.base, `/tool task {"subagent":"helper","prompt":"/reply helped"}\n/reply ok`);
    const sub = await until(host.base, delegated, (all) => all.some((e) => e.type === "turn.completed"), "task done");
    expect(sub.find((e) => e.type === "subagent.called")!.data).toMatchObject({ subagent: "helper" });
    expect(sub.find((e) => e.type === "subagent.completed")!.data).toMatchObject({ subagent: "helper", isError: false, result: "helped" });
  });
});

describe("start-up warnings and refusals", () => {
  test("without runners and without --public-url: warnings at start-up, and turns fail saying what to pass", async () => {
    const port = await freePort();
    const host = await startServe([projectDir, "--port", String(port), "--state-root", join(scratch, "state-bare"), "--no-docs", "--no-playground"], env);
    running.push(host);
    expect(host.stderr()).toMatch(/runtime "cloud" and no cloud runner/);
    expect(host.stderr()).toMatch(/server tools \(approve_it, lookup\) are omitted from its cloud turns: pass --public-url or --cloud-tools-url/);
    const base = `${host.url}/${slug}`;
    const sessionId = await send(base, "/reply hi");
    const events = await until(base, sessionId, (all) => all.some((e) => e.type === "turn.failed"), "turn.failed");
    expect((events.find((e) => e.type === "turn.failed")!.data as { message: string }).message).toMatch(/no cloud runner.*--runner/);
  });

  test("a cloud agent with a tools allowlist does not start; --runner without the secret is a usage error", async () => {
    const dir = write({ "bot/agent.ts": `export default { runtime: "cloud", tools: ["shell"], cloud: {} };\n` });
    const refused = spawnCli(["serve", dir, "--port", "0", "--state-root", join(scratch, "state-allow")], env);
    running.push(refused);
    const result = await finished(refused);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/cloud_tools_allowlist/);
    const noSecret = spawnCli(["serve", projectDir, "--port", "0", "--runner", "http://127.0.0.1:9"], cliEnv(join(scratch, "config")));
    running.push(noSecret);
    const usage = await finished(noSecret);
    expect(usage.code).not.toBe(0);
    expect(usage.stderr).toMatch(/--runner needs the secret/);
  });

  test("hybrid: a local agent's channel sends a session to the cloud; with an allowlist the send is refused", async () => {
    const channel = `import { defineChannel, POST } from "agent-serve/channels";
import * as v from "valibot";
export default defineChannel({
  routes: [
    POST("/go", { bodySchema: v.object({ message: v.string() }), async handler(_request, { body, send }) {
      const sent = await send(body.message, { cloud: { env: { HYBRID: "${ENV_VALUE}" } } });
      return { sessionId: sent.sessionId };
    } }),
    POST("/bad", { bodySchema: v.object({}), async handler(_request, { send }) {
      await send("/reply no", { cloud: { repos: "not a list" } });
    } }),
  ],
});
`;
    const hybrid = write({ "bot/channels/hybrid.ts": channel });
    const allowlisted = write({ "bot/agent.ts": `export default { tools: ["read"] };\n`, "bot/channels/hybrid.ts": channel });
    const runner = spawnCli(["runner", hybrid, "--port", "0", "--workdir", join(scratch, "work-h")], env);
    running.push(runner);
    const runnerUrl = (await waitForOutput(runner, /runner listening on (http:\/\/\S+)/))[1]!;
    const host = await startServe([hybrid, "--port", "0", "--state-root", join(scratch, "state-h"), "--runner", runnerUrl, "--no-docs", "--no-playground"], env);
    running.push(host);
    const base = `${host.url}/${hybrid.split("/").pop()}`;
    const local = await send(base, `/tool shell {"command":"echo secretlen=\${#AGENT_SERVE_RUNNER_SECRET}"}\n/reply local`);
    const localEvents = await until(base, local, (all) => all.some((e) => e.type === "turn.completed"), "local turn");
    expect(localEvents.some((e) => e.type === "agent.bound")).toBe(false);
    // The host's own shell does not see the runner secret either.
    expect(JSON.stringify(localEvents.find((e) => e.type === "action.result")!.data)).toContain("secretlen=0");
    const go = await fetch(`${base}/v1/channels/hybrid/go`, post({ message: `/tool shell {"command":"echo len=\${#HYBRID}"}\n/reply sent` }));
    expect(go.status, `${await go.clone().text()}\n${host.stderr()}`).toBe(200);
    const { sessionId } = (await go.json()) as { sessionId: string };
    const events = await until(base, sessionId, (all) => all.some((e) => e.type === "turn.completed"), "cloud turn");
    expect(events.some((e) => e.type === "agent.bound")).toBe(true);
    expect(JSON.stringify(events.find((e) => e.type === "action.result")!.data)).toContain(`len=${ENV_VALUE.length}`);
    expect(JSON.stringify(events)).not.toContain(ENV_VALUE);
    const session = await (await fetch(`${base}/v1/session/${sessionId}`)).text();
    expect(session).not.toContain(ENV_VALUE);
    const bad = await fetch(`${base}/v1/channels/hybrid/bad`, post({}));
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ error: "invalid_cloud", message: "send's cloud.repos must be a list of {url, startingRef?}" });

    const other = await startServe([allowlisted, "--port", "0", "--state-root", join(scratch, "state-h2"), "--runner", runnerUrl, "--no-docs", "--no-playground"], env);
    running.push(other);
    const refused = await fetch(`${other.url}/${allowlisted.split("/").pop()}/v1/channels/hybrid/go`, post({ message: "/reply no" }));
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({ ok: false, error: "cloud_send_refused", message: expect.stringMatching(/local runtime.*remove tools/) });
  });
});

