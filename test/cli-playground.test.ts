/**
 * `agent-serve playground`: for a project (a local server whose banner lists the playground), and
 * with `--url` alone for a running server, every API call forwarded there with the bearer token
 * the browser never sees. The proxy admits direct loopback callers only.
 */
import { request as httpRequest } from "node:http";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { serveNode } from "../adapters/node.ts";
import type { NodeServer } from "../adapters/node.ts";
import { createHost } from "../src/host/host.ts";
import type { AgentHost } from "../src/host/types.ts";
import { run, scratchDir, start } from "./_cli-io.ts";
import { helloOptions, readEvents } from "./_harness.ts";

const { dir: scratch, env } = scratchDir("cli-playground");
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe("playground [dir]", () => {
  it("serves the project and lists each agent's playground", async () => {
    const stop = new AbortController();
    const proc = start(["playground", "examples/hello", "--port", "0", "--state-root", join(scratch, "state")], { env, signal: stop.signal });
    try {
      const [, url] = await proc.waitFor(/hello\s+(http:\/\/\S+\/hello\/playground)/);
      const page = await fetch(url!);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('<meta name="agent-serve-base" content="/hello">');
      // The docs site is not part of it.
      expect((await fetch(new URL("/docs", url))).status).toBe(404);
    } finally {
      stop.abort();
    }
    expect(await proc.exited).toBe(0);
  });
});

describe("playground --url", () => {
  let host: AgentHost | undefined;
  let server: NodeServer | undefined;
  const stop = new AbortController();
  afterEach(async () => {
    await host?.close();
    await server?.close(true);
  });
  afterAll(() => stop.abort());

  async function upstream(bearerToken?: string): Promise<string> {
    host = createHost(helloOptions({ auth: bearerToken ? { bearerToken } : undefined }));
    server = await serveNode(host, { port: 0, silent: true });
    return server.url;
  }

  async function startProxy(args: string[]): Promise<string> {
    const signal = new AbortController();
    stop.signal.addEventListener("abort", () => signal.abort());
    const proc = start(["playground", ...args, "--port", "0"], { env, signal: signal.signal });
    const [, url] = await proc.waitFor(/agent-serve playground at (http:\/\/\S+)\/playground/);
    return url!;
  }

  it("serves the page at /playground and forwards the API with the bearer token", async () => {
    const origin = await upstream("s3cret-token");
    const proxy = await startProxy(["--url", `${origin}/hello`, "--bearer-token", "s3cret-token"]);

    const page = await (await fetch(`${proxy}/playground`)).text();
    expect(page).toContain('<meta name="agent-serve-base" content="">');
    const root = await fetch(`${proxy}/`, { redirect: "manual" });
    expect(root.status).toBe(302);
    expect(root.headers.get("location")).toBe(`${proxy}/playground`);

    expect(await (await fetch(`${proxy}/v1/meta`)).json()).toMatchObject({ name: "Hello", slug: "hello" });
    // The browser sends no credential; the proxy adds it.
    const created = await fetch(`${proxy}/v1/session`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ message: "/reply through the proxy" }),
    });
    expect(created.status).toBe(200);
    const { sessionId } = (await created.json()) as { sessionId: string };
    // The live NDJSON stream passes through as it is written.
    const stream = await fetch(`${proxy}/v1/session/${sessionId}/stream`);
    expect(stream.headers.get("content-type")).toBe("application/x-ndjson");
    const events = await readEvents(stream, (event) => event.type === "turn.completed");
    expect(events.find((event) => event.type === "message.completed")?.data).toMatchObject({ text: "through the proxy" });
    // Errors keep their status and envelope.
    const missing = await fetch(`${proxy}/v1/session/ses_missing/events`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ ok: false });
  });

  it("refuses forwarded and DNS-rebinding callers, who would otherwise spend the token", async () => {
    const origin = await upstream("s3cret-token");
    const proxy = await startProxy(["--url", `${origin}/hello`, "--bearer-token", "s3cret-token"]);
    const port = new URL(proxy).port;
    for (const headers of [{ host: `evil.example:${port}` }, { "x-forwarded-for": "203.0.113.9" }]) {
      const status = await new Promise<number>((resolve, reject) => {
        const req = httpRequest({ host: "127.0.0.1", port, path: "/v1/sessions", headers }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        });
        req.on("error", reject);
        req.end();
      });
      expect(status, JSON.stringify(headers)).toBe(401);
    }
  });

  it("a multi-agent root without the slug fails with the reason", async () => {
    const origin = await upstream();
    const result = await run(["playground", "--url", origin, "--port", "0"], { env });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("the URL needs the agent's slug");
  });

  it("local-server options and a directory are usage errors with --url", async () => {
    for (const args of [
      ["--url", "http://127.0.0.1:9/hello", "--state-root", "x"],
      ["--url", "http://127.0.0.1:9/hello", "--dev"],
      ["examples/hello", "--url", "http://127.0.0.1:9/hello"],
      ["examples/hello", "--bearer-token", "t"],
    ]) {
      const result = await run(["playground", ...args], { env });
      expect(result.code, args.join(" ")).toBe(2);
      expect(result.stderr).toMatch(/--url|--bearer-token/);
    }
  });
});
