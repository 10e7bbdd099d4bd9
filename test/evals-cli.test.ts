/**
 * `agent-serve eval`: runs through the eval routes of an ephemeral local server (or `--url`),
 * prints cases as they finish and exits 1 when a case fails.
 */
import { rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { serveNode } from "../adapters/node.ts";
import type { NodeServer } from "../adapters/node.ts";
import { defineEval } from "../src/entries/evals.ts";
import { createHost } from "../src/host/host.ts";
import { createMemoryStorage } from "../src/base/storage/memory.ts";
import type { AgentHost } from "../src/host/types.ts";
import { REPO } from "./_cli.ts";
import { run, scratchDir, start, writeFiles } from "./_cli-io.ts";
import { eventually, helloOptions, project } from "./_harness.ts";

const { dir: scratch, env } = scratchDir("evals-cli");
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const dir = writeFiles(join(scratch, "proj"), {
  "package.json": JSON.stringify({ name: "proj", type: "module" }),
  "bot/instructions.md": "Test.\n",
  "evals/pass.eval.ts": [
    `import { defineEval, includes } from "agent-serve/evals";`,
    `export default defineEval({ tags: ["smoke"], description: "echoes", async test(t) {`,
    `  await t.send("hi");`,
    `  t.succeeded();`,
    `  await t.check(t.reply, includes("echo: hi"));`,
    `} });`,
  ].join("\n"),
  "evals/fail.eval.ts": [
    `import { defineEval, includes } from "agent-serve/evals";`,
    `export default defineEval({ tags: ["broken"], async test(t) {`,
    `  await t.send("hi");`,
    `  await t.check(t.reply, includes("bye"));`,
    `} });`,
  ].join("\n"),
  "evals/hang.eval.ts": `export default { tags: ["hang"], test: () => new Promise(() => {}) };\n`,
});
const stateRoot = join(scratch, "state");
const evalCli = (...args: string[]) => run(["eval", dir, "--state-root", stateRoot, ...args], { env });

describe("agent-serve eval (ephemeral server)", () => {
  it("exits 0 when every case passes", async () => {
    const result = await evalCli("--filter", "pass");
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^✔ pass {2}\d+ ms\n1 passed, 0 failed of 1 \(completed, eval_[A-Za-z0-9]+\)\n$/);
  });

  it("exits 1 when a case fails, naming the failure and the session", async () => {
    const result = await evalCli("--filter", "pass", "--filter", "fail");
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('✖ fail  ');
    expect(result.stdout).toContain('    check: expected "echo: hi" to match includes("bye")\n');
    expect(result.stdout).toMatch(/ {4}session (ses_\w+) \(agent-serve logs \1\)\n/);
    expect(result.stdout).toContain("✔ pass  ");
    expect(result.stdout).toMatch(/1 passed, 1 failed of 2 \(completed, eval_\w+\)\n$/);
  });

  it("--json prints the final snapshot; --tag selects", async () => {
    const result = await evalCli("--tag", "smoke", "--json");
    expect(result.code).toBe(0);
    const snapshot = JSON.parse(result.stdout) as { status: string; total: number; passed: number; cases: Array<{ id: string }> };
    expect(snapshot).toMatchObject({ status: "completed", total: 1, passed: 1 });
    expect(snapshot.cases.map((c) => c.id)).toEqual(["pass"]);
  });

  it("--timeout-ms bounds cases without their own limit", async () => {
    const result = await evalCli("--filter", "hang", "--timeout-ms", "100");
    expect(result.code).toBe(1);
    expect(result.stdout).toContain("    timeout: the case did not finish within 100 ms\n");
  });

  it("--list lists the evals; nothing matching exits 1", async () => {
    const list = await evalCli("--list");
    expect(list.code).toBe(0);
    expect(list.stdout).toBe(["fail  #broken", "hang  #hang", "pass  #smoke   echoes", ""].join("\n"));
    const json = await evalCli("--list", "--json", "--tag", "smoke");
    expect(JSON.parse(json.stdout)).toMatchObject({ evals: [{ id: "pass", tags: ["smoke"], description: "echoes" }], config: { maxConcurrency: 4 } });

    const none = await evalCli("--tag", "nope");
    expect(none.code).toBe(1);
    expect(none.stderr).toContain("agent-serve: no eval matches --tag nope (list them with --list)\n");
    const usage = await evalCli("--timeout-ms", "soon");
    expect(usage.code).toBe(2);
  });

  it("the example agent's evals pass", async () => {
    const result = await run(["eval", join(REPO, "examples/hello"), "--state-root", join(scratch, "hello-state")], { env });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("✔ greeting");
  });
});

describe("agent-serve eval --url", () => {
  let host: AgentHost | undefined;
  let server: NodeServer | undefined;
  afterEach(async () => {
    await host?.close();
    await server?.close(true);
  });

  it("runs against a running server", async () => {
    const evals = {
      ok: defineEval({ test: async (t) => void (await t.send("hi")) }),
      bad: defineEval({ test: (t) => t.fail("always") }),
    };
    host = createHost(helloOptions({ agents: [{ slug: "hello", project: project({ evals }), storage: createMemoryStorage() }] }));
    server = await serveNode(host, { port: 0, silent: true });
    const ok = await run(["eval", "--url", `${server.url}/hello`, "--filter", "ok"], { env });
    expect(ok.code).toBe(0);
    const bad = await run(["eval", "--url", `${server.url}/hello`], { env });
    expect(bad.code).toBe(1);
    expect(bad.stdout).toContain("    fail: always\n");
  });

  it("Ctrl-C cancels the run and exits 1", async () => {
    const evals = { slow: defineEval({ test: async (t) => void (await t.send("/sleep 30000")) }) };
    host = createHost(helloOptions({ agents: [{ slug: "hello", project: project({ evals }), storage: createMemoryStorage() }] }));
    server = await serveNode(host, { port: 0, silent: true });
    const interrupt = new AbortController();
    const cli = start(["eval", "--url", `${server.url}/hello`], { env, signal: interrupt.signal });
    const running = host;
    await eventually(async () => {
      const list = (await (await running.request("/hello/v1/dev/evals/runs")).json()) as { runs: Array<{ cases: Array<{ sessionId: string | null }> }> };
      return list.runs[0]?.cases[0]?.sessionId ?? undefined;
    });
    interrupt.abort();
    expect(await cli.exited).toBe(1);
    expect(cli.stdout()).toMatch(/^- slow {2}cancelled\n0 passed, 0 failed, 1 not run of 1 \(cancelled, eval_\w+\)\n$/);
    const list = (await (await running.request("/hello/v1/dev/evals/runs")).json()) as { runs: Array<{ status: string }>; activeRunId?: string };
    expect(list).toMatchObject({ runs: [{ status: "cancelled" }] });
    expect(list.activeRunId).toBeUndefined();
  });
});
