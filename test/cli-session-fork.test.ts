/**
 * `agent-serve session fork` against a served host (docs/guide/forking.md): the fork's id and
 * token, `--json` as the route answers, and usage errors for a missing id or index.
 */
import { rmSync } from "node:fs";
import { afterAll, expect, test } from "vitest";
import { createMemoryStorage } from "../src/base/storage/memory.ts";
import { eventually, helloOptions, project } from "./_harness.ts";
import { serve } from "./_a2a.ts";
import { run, scratchDir } from "./_cli-io.ts";

const { dir: scratch, env } = scratchDir("cli-fork");
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

test("session fork: a new session from the source's events up to --at", async () => {
  const served = await serve(helloOptions({ agents: [{ slug: "hello", project: project(), storage: createMemoryStorage() }] }));
  const url = `${served.url}/hello`;
  try {
    const created = (await (await fetch(`${url}/v1/session`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ message: "/reply first" }) })).json()) as { sessionId: string };
    const source = created.sessionId;
    await eventually(async () => ((await (await fetch(`${url}/v1/session/${source}/events`)).text()).includes("session.waiting") ? true : undefined), 5000, "the first turn");
    const human = await run(["session", "fork", source, "--at", "2", "--url", url], { env });
    expect(human.code, human.stderr).toBe(0);
    const forkId = /session (ses_\w+)/.exec(human.stdout)?.[1] ?? "";
    expect(human.stdout).toContain(`forked ${source} at event 2: session ${forkId}`);
    const lines = (await (await fetch(`${url}/v1/session/${forkId}/events`)).text()).trim().split("\n").map((line) => JSON.parse(line) as { type: string; data: unknown });
    expect(lines.at(-2)).toEqual(expect.objectContaining({ type: "session.forked", data: { sourceSessionId: source, atIndex: 2 } }));
    const json = await run(["session", "fork", source, "--at", "0", "--message", "/reply branch", "--url", url, "--json"], { env });
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual(expect.objectContaining({ ok: true, sessionId: expect.stringMatching(/^ses_/), continuationToken: expect.any(String) }));
    const past = await run(["session", "fork", source, "--at", "999", "--url", url], { env });
    expect(past.code).toBe(1);
    expect(past.stderr).toMatch(/400 invalid_request/);
    expect((await run(["session", "fork", source, "--url", url], { env })).code).toBe(2);
    expect((await run(["session", "fork", "--at", "1", "--url", url], { env })).code).toBe(2);
    expect((await run(["session", "fork", source, "--at", "-1", "--url", url], { env })).code).toBe(2);
  } finally {
    await served.close();
  }
});
