/**
 * The target resolver of request-sending commands: `--url` (with the slug check of multi mode
 * and `--bearer-token`) and the ephemeral local server (`--slug` when several agents exist).
 */
import { rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { serveNode } from "../adapters/node.ts";
import type { NodeServer } from "../adapters/node.ts";
import { createHost } from "../src/host/host.ts";
import { createMemoryStorage } from "../src/base/storage/memory.ts";
import type { AgentHost, AgentHostOptions } from "../src/host/types.ts";
import { run, scratchDir, writeFiles } from "./_cli-io.ts";
import { helloOptions, project } from "./_harness.ts";

const { dir: scratch, env } = scratchDir("cli-target");
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

let host: AgentHost | undefined;
let server: NodeServer | undefined;
afterEach(async () => {
  await host?.close();
  await server?.close(true);
  host = undefined;
  server = undefined;
});

async function serveHost(options: AgentHostOptions): Promise<string> {
  host = createHost(options);
  server = await serveNode(host, { port: 0, silent: true });
  return server.url;
}

describe("--url", () => {
  it("a multi-agent host root is refused with the slugs it serves", async () => {
    const url = await serveHost(
      helloOptions({
        agents: [
          { slug: "hello", project: project(), storage: createMemoryStorage() },
          { slug: "other", project: project({ name: "Other" }), storage: createMemoryStorage() },
        ],
      }),
    );
    const result = await run(["sessions", "--url", url], { env });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`the URL needs the agent's slug, e.g. ${url}/hello (agents: hello, other)`);

    const ok = await run(["sessions", "--url", `${url}/other/`, "--json"], { env });
    expect(ok.code).toBe(0);
    expect(JSON.parse(ok.stdout)).toEqual({ sessions: [], nextCursor: null });
  });

  it("single mode answers at the root", async () => {
    const url = await serveHost(helloOptions({ mode: "single" }));
    const result = await run(["sessions", "--url", url], { env });
    expect(result).toMatchObject({ code: 0, stdout: "no sessions for hello\n" });
  });

  it("--bearer-token is sent as Authorization: Bearer", async () => {
    const url = `${await serveHost(helloOptions({ auth: { bearerToken: "0123-secret" } }))}/hello`;
    const refused = await run(["sessions", "--url", url], { env });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("GET /v1/sessions answered 401");

    const admitted = await run(["sessions", "--url", url, "--bearer-token", "0123-secret", "--json"], { env });
    expect(admitted.code).toBe(0);
    expect(JSON.parse(admitted.stdout)).toEqual({ sessions: [], nextCursor: null });
  });

  it("an unreachable server, a non-agent URL and a bad URL fail clearly", async () => {
    const down = await run(["sessions", "--url", "http://127.0.0.1:9/hello"], { env });
    expect(down.code).toBe(1);
    expect(down.stderr).toContain("cannot reach http://127.0.0.1:9/hello");

    const url = await serveHost(helloOptions());
    const wrong = await run(["sessions", "--url", `${url}/nope`], { env });
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain("is not an agent-serve agent: GET /v1/health answered 404");

    const bad = await run(["sessions", "--url", "localhost:3000"], { env });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--url must be");
  });

  it("local-only flags are usage errors with --url, and --bearer-token without it", async () => {
    const withSlug = await run(["sessions", "--url", "http://127.0.0.1:9/x", "--slug", "x"], { env });
    expect(withSlug.code).toBe(2);
    expect(withSlug.stderr).toContain("--slug applies to the local server only");
    const tokenOnly = await run(["sessions", "examples/hello", "--bearer-token", "t"], { env });
    expect(tokenOnly.code).toBe(2);
    expect(tokenOnly.stderr).toContain("--bearer-token applies with --url or --prod only");
  });
});

describe("ephemeral local server", () => {
  it("a directory of several agents needs --slug; the state root is serve's", async () => {
    const parent = join(scratch, "many");
    for (const name of ["alpha", "beta"]) writeFiles(join(parent, name), { "bot/instructions.md": "Hi.\n" });
    const ambiguous = await run(["sessions", parent], { env });
    expect(ambiguous.code).toBe(2);
    expect(ambiguous.stderr).toContain("several agents are mounted (alpha, beta): pass --slug");

    const chat = await run(["chat", parent, "--slug", "beta"], { env, stdin: "hey\n" });
    expect(chat.code).toBe(0);
    expect(chat.stdout).toContain("beta› echo: hey");
    // No --state-root: the session lives where `serve` keeps it, <project>/.agent-serve/<slug>.
    const listed = await run(["sessions", parent, "--slug", "beta", "--json"], { env });
    expect(JSON.parse(listed.stdout).sessions).toHaveLength(1);
    expect((await run(["sessions", join(parent, "beta"), "--json"], { env })).stdout).toBe(listed.stdout);
  });

  it("a project with errors is refused with its diagnostics", async () => {
    const broken = writeFiles(join(scratch, "broken"), { "bot/agent.ts": "export default {};\n" });
    const result = await run(["sessions", broken], { env });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("missing_instructions");
    expect(result.stderr).toContain("the project has errors");
  });
});
