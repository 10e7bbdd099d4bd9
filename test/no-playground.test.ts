/**
 * `--no-playground` (host option `playground: false`) removes the host's two index routes, `/`
 * and `/v1/agents`; the agents and host health stay. `--no-docs` removes the /docs site (test/docs-site.test.ts checks that).
 */
import { rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { start, scratchDir } from "./_cli-io.ts";
import { describeHost, helloOptions } from "./_harness.ts";

describeHost("--no-playground", () => helloOptions({ playground: false }), (target) => {
  it("answers 404 for / and /v1/agents while the agent and host health stay", async () => {
    for (const path of ["/", "/v1/agents"]) {
      const response = await target().fetch(path);
      expect(response.status).toBe(404);
      expect(await response.json()).toMatchObject({ ok: false, error: "not_found" });
    }
    expect((await target().fetch("/v1/health")).status).toBe(200);
    expect((await target().fetch("/hello/v1/health")).status).toBe(200);
  });
});

describeHost("playground enabled (default)", () => helloOptions(), (target) => {
  it("serves / and /v1/agents", async () => {
    const index = await target().fetch("/");
    expect(index.status).toBe(200);
    expect(await index.text()).toContain('href="/hello/playground"');
    const agents = await target().fetch("/v1/agents");
    expect(agents.status).toBe(200);
    expect(await agents.json()).toMatchObject({ agents: [{ slug: "hello", basePath: "/hello" }] });
  });
});

const { dir: scratch, env } = scratchDir("no-playground");
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

it("serve --no-playground --no-docs starts without the index routes", async () => {
  const stop = new AbortController();
  const proc = start(["serve", "examples/hello", "--port", "0", "--no-playground", "--no-docs", "--state-root", join(scratch, "state")], { env, signal: stop.signal });
  try {
    const [, url] = await proc.waitFor(/agent-serve listening on (http:\/\/\S+)/);
    expect((await fetch(`${url}/`)).status).toBe(404);
    expect((await fetch(`${url}/v1/agents`)).status).toBe(404);
    expect((await fetch(`${url}/hello/v1/health`)).status).toBe(200);
  } finally {
    stop.abort();
  }
  expect(await proc.exited).toBe(0);
});
