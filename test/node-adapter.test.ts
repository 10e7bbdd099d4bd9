import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Server } from "node:net";
import { afterEach, describe, expect, test } from "vitest";
import { createHost, loadProject, serveNode, serveProject } from "../adapters/node.ts";
import type { NodeServer } from "../adapters/node.ts";
import { importWithNodeHooks } from "../loader/import-module.ts";
import type { AgentHostOptions, RequestContext } from "../src/host/types.ts";

const agents: AgentHostOptions["agents"] = [
  { slug: "a", project: { name: "A", agent: { model: "scripted" }, instructions: "Be brief.", diagnostics: [] } },
];

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function start(options: Parameters<typeof serveNode>[1], hostOptions: Partial<AgentHostOptions> = {}): Promise<NodeServer> {
  const host = createHost({ agents, ...hostOptions });
  cleanups.push(() => host.close());
  const server = await serveNode(host, { silent: true, ...options });
  cleanups.push(() => server.close(true));
  return server;
}

/** Holds a loopback port, like another program that got there first. */
async function occupyPort(port = 0): Promise<number> {
  const blocker: Server = createServer();
  await new Promise<void>((resolve, reject) => {
    blocker.once("error", reject);
    blocker.listen({ port, host: "127.0.0.1", exclusive: true }, resolve);
  });
  cleanups.push(() => new Promise((resolve) => blocker.close(() => resolve())));
  const address = blocker.address();
  if (typeof address !== "object" || address === null) throw new Error("no address");
  return address.port;
}

describe("serveNode", () => {
  test("port 0 listens on a free loopback port and serves host.fetch", async () => {
    const server = await start({ port: 0 });
    expect(server.port).toBeGreaterThan(0);
    expect(server.url).toBe(`http://127.0.0.1:${server.port}`);
    const response = await fetch(`${server.url}/a/v1/health`);
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ ok: true });
    expect(server.notice).toBeUndefined();
  });

  test("the TCP peer reaches the host as the request ip", async () => {
    const seen: Array<string | undefined> = [];
    const server = await start(
      { port: 0 },
      {
        auth: {
          policies: [
            (_request, info) => {
              seen.push(info.ip);
              return { authenticator: "test", principalId: "p", principalType: "user" };
            },
          ],
        },
      },
    );
    const response = await fetch(`${server.url}/a/v1/sessions`);
    expect(response.status).toBe(200);
    expect(seen).toEqual(["127.0.0.1"]);
  });

  test("the default loopback-only auth admits a real loopback peer but not an in-process request", async () => {
    const host = createHost({ agents });
    cleanups.push(() => host.close());
    const server = await serveNode(host, { port: 0, silent: true });
    cleanups.push(() => server.close(true));
    expect((await fetch(`${server.url}/a/v1/sessions`)).status).toBe(200);
    // Same request without a peer address: not provably loopback, so refused.
    expect((await host.fetch(new Request(`${server.url}/a/v1/sessions`))).status).toBe(401);
  });

  test("a taken default port moves to the next free port with a notice", async () => {
    const taken = await occupyPort();
    const server = await start({ port: taken, portExplicit: false });
    expect(server.port).toBeGreaterThan(taken);
    expect(server.port).toBeLessThan(taken + 20);
    expect(server.notice).toBe(`port ${taken} is in use; listening on ${server.port} instead`);
    expect((await fetch(`${server.url}/v1/health`)).status).toBe(200);
  });

  test("an explicit port that is taken fails with a hint", async () => {
    const taken = await occupyPort();
    await expect(start({ port: taken })).rejects.toThrow(`port ${taken} is in use; pass --port 0 for any free port`);
    await expect(start({ port: taken, portExplicit: true })).rejects.toThrow("pass --port 0");
  });

  test("close(true) ends open live streams", async () => {
    const server = await start({ port: 0 });
    const created = await fetch(`${server.url}/a/v1/session`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ message: "hi" }),
    });
    const { sessionId } = (await created.json()) as { sessionId: string };
    const stream = await fetch(`${server.url}/a/v1/session/${sessionId}/stream`);
    expect(stream.headers.get("content-type")).toContain("application/x-ndjson");
    const reader = stream.body!.getReader();
    await reader.read();
    const closing = server.close(true);
    // The follower is live (it never ends on its own); a forced close must end it promptly.
    const drained = (async () => {
      try {
        while (!(await reader.read()).done);
      } catch {
        // A reset connection is an end too.
      }
      return "ended";
    })();
    expect(await within(drained, 5_000)).toBe("ended");
    await closing;
  });
});

async function within<T>(promise: Promise<T>, ms: number): Promise<T | "timed out"> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<"timed out">((resolve) => {
    timer = setTimeout(resolve, ms, "timed out");
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

describe("the composition root in agent-serve/node", () => {
  const example = fileURLToPath(new URL("../examples/hello", import.meta.url));

  test("loadProject discovers a project with its diagnostics and no errors", async () => {
    const loaded = await loadProject(example, { mode: "single" });
    expect(loaded.mode).toBe("single");
    expect(loaded.errors).toBe(0);
    expect(loaded.projects.map((p) => p.slug)).toEqual(["hello"]);
    expect(loaded.projects[0]!.project.agent).toBeDefined();
  });

  test("an injected importer loads the project's files", async () => {
    const imported: string[] = [];
    const loaded = await loadProject(example, {
      mode: "single",
      importModule: (file) => {
        imported.push(file);
        return importWithNodeHooks(file);
      },
    });
    expect(loaded.errors).toBe(0);
    expect(imported).toContain(join(example, "bot", "agent.ts"));
  });

  test("serveProject loads, binds fs storage and listens; a turn is answered and survives a restart", async () => {
    const stateRoot = await mkdtemp(join(tmpdir(), "agent-serve-project-"));
    cleanups.push(() => rm(stateRoot, { recursive: true, force: true }));
    const quiet = { info() {}, warn() {}, error() {} };
    const first = await serveProject(example, { port: 0, silent: true, stateRoot, logger: quiet, playground: false, env: {} });
    const created = await fetch(`${first.server.url}/hello/v1/session`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ message: "/reply stored" }),
    });
    const { sessionId } = (await created.json()) as { sessionId: string };
    await eventuallyText(`${first.server.url}/hello/v1/session/${sessionId}/events`, '"session.waiting"');
    await first.close();
    const second = await serveProject(example, { port: 0, silent: true, stateRoot, logger: quiet, playground: false, env: {} });
    cleanups.push(() => second.close());
    expect(await eventuallyText(`${second.server.url}/hello/v1/session/${sessionId}/events`, '"stored"')).toContain('"message.completed"');
  });

  test("serveProject refuses a directory with errors and lists them", async () => {
    const empty = await mkdtemp(join(tmpdir(), "agent-serve-empty-"));
    cleanups.push(() => rm(empty, { recursive: true, force: true }));
    await expect(serveProject(empty, { port: 0, silent: true })).rejects.toThrow(/not starting: 1 error in the project\nerror \[no_project\]/);
  });

  test("each request reaches the host with srvx's ip and waitUntil", async () => {
    const seen: RequestContext[] = [];
    const server = await serveNode({ fetch: async (_request, context) => (seen.push(context ?? {}), new Response("ok")) }, { port: 0, silent: true });
    cleanups.push(() => server.close(true));
    expect(await (await fetch(`${server.url}/anything`)).text()).toBe("ok");
    expect(seen[0]?.ip).toBe("127.0.0.1");
    expect(typeof seen[0]?.waitUntil).toBe("function");
    expect(seen[0]?.env).toBeUndefined();
  });
});

async function eventuallyText(url: string, needle: string): Promise<string> {
  const deadline = Date.now() + 5_000;
  for (;;) {
    const text = await (await fetch(url)).text();
    if (text.includes(needle)) return text;
    if (Date.now() > deadline) throw new Error(`no ${needle} in ${url}: ${text}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
