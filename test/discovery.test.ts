/** `GET /v1/info`, `/v1/meta` and `/v1/logs` (docs/design/mcp-and-discovery.md "Discovery and meta", docs/guide/http-api.md "Response shapes"). */
import { readFile } from "node:fs/promises";
import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { defineArtifacts } from "../src/entries/artifacts.ts";
import { createHost } from "../src/host/host.ts";
import { defineHook } from "../src/entries/hooks.ts";
import { createMemoryStorage } from "../src/base/storage/memory.ts";
import { defineTool } from "../src/entries/tools.ts";
import { describeHost, eventually, helloOptions, postJson, project, quietLogger } from "./_harness.ts";

const pkg = JSON.parse(await readFile(new URL("../package.json", import.meta.url), "utf8")) as { version: string };

const tools = {
  greet: defineTool({
    description: "Greets someone",
    inputSchema: v.object({ name: v.string() }),
    execute: ({ name }) => `hello ${name}`,
  }),
  guarded: defineTool({ description: "Asks first", needsApproval: () => true, execute: () => "ok" }),
  always: defineTool({ description: "Always asks", needsApproval: true, execute: () => "ok" }),
  shout: defineTool({ description: "Runs where the agent runs", execution: "agent", script: "echo HI" }),
};

/** Logs every received message, so tests can produce log lines on demand. */
const noteHook = defineHook({
  events: { "message.received": (event, context) => context.logger.info(`received ${String(event.data.text)}`) },
});

const options = () =>
  helloOptions({
    agents: [
      {
        slug: "hello",
        project: project({
          description: "A test agent",
          tools,
          hooks: { "audit/note": noteHook },
          artifacts: defineArtifacts({ kinds: { report: { description: "A report" } }, agentTool: true, max: 5 }),
          diagnostics: [{ severity: "warning", code: "something_odd", message: "odd but fine" }],
        }),
        storage: createMemoryStorage(),
      },
    ],
  });

describeHost("discovery routes", options, (target) => {
  it("GET /v1/info describes the project", async () => {
    const response = await target().fetch("/hello/v1/info");
    expect(response.status).toBe(200);
    const info = await response.json();
    expect(info).toMatchObject({
      name: "Hello",
      slug: "hello",
      description: "A test agent",
      model: { id: "scripted", params: {}, notice: expect.stringContaining("scripted model") },
      skills: [],
      mcpConnections: [],
      subagents: [],
      schedules: [],
      hooks: ["audit/note"],
      artifacts: { kinds: [{ name: "report", description: "A report" }], agentTool: true, max: 5 },
      abs: [],
    });
    expect(info.tools).toEqual([
      { name: "always", description: "Always asks", execution: "server", needsApproval: true, inputSchema: { type: "object", properties: {} }, effect: null, dryRun: false },
      {
        name: "greet",
        description: "Greets someone",
        execution: "server",
        needsApproval: false,
        inputSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
        effect: null,
        dryRun: false,
      },
      { name: "guarded", description: "Asks first", execution: "server", needsApproval: "predicate", inputSchema: { type: "object", properties: {} }, effect: null, dryRun: false },
      { name: "shout", description: "Runs where the agent runs", execution: "agent", needsApproval: false, inputSchema: { type: "object", properties: {} }, effect: null, dryRun: false },
    ]);
    expect(info.channels).toHaveLength(1);
    expect(info.channels[0].id).toBe("http");
    expect(info.channels[0].routes).toEqual(
      expect.arrayContaining([
        { method: "POST", path: "/hello/v1/session", summary: expect.any(String), bodySchema: expect.objectContaining({ type: "object" }) },
        { method: "GET", path: "/hello/v1/info", summary: expect.any(String) },
        { method: "POST", path: "/hello/v1/mcp", summary: expect.any(String) },
        { method: "POST", path: "/hello/v1/mcp/tools", summary: expect.any(String) },
      ]),
    );
    expect(info.diagnostics).toEqual([
      { severity: "warning", code: "something_odd", message: "odd but fine" },
      { severity: "warning", code: "scripted_model_fallback", message: info.model.notice },
    ]);
  });

  it("GET /v1/meta gives the bootstrap data", async () => {
    const response = await target().fetch("/hello/v1/meta");
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ name: "Hello", slug: "hello", dev: false, basePath: "/hello", version: pkg.version, eventFormat: 1 });
  });

  it("GET /v1/logs returns recent lines and only newer ones after the cursor", async () => {
    const { fetch } = target();
    const readLogs = async (query = "") => {
      const response = await fetch(`/hello/v1/logs${query}`);
      expect(response.status).toBe(200);
      return (await response.json()) as { lines: Array<{ seq: number; at: string; level: string; message: string }>; next: number };
    };
    await fetch("/hello/v1/session", postJson({ message: "first" }));
    const before = await eventually(async () => {
      const page = await readLogs();
      // The host's own lines (the request, the turn) come too; the page settles once the turn has ended.
      const settledTurn = page.lines.some((line) => /turn completed/.test(line.message)) && page.lines.at(-1)?.message.includes("turn completed");
      return page.lines.some((line) => line.message === "received first") && settledTurn ? page : undefined;
    }, 5000, "the first log line");
    const line = before.lines.find((entry) => entry.message === "received first");
    expect(line).toMatchObject({ level: "info", at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) });
    expect(before.next).toBe(before.lines.at(-1)?.seq);

    const idle = await readLogs(`?after=${before.next}`);
    expect(idle).toEqual({ lines: [], next: before.next });

    await fetch("/hello/v1/session", postJson({ message: "second" }));
    const after = await eventually(async () => {
      const page = await readLogs(`?after=${before.next}`);
      return page.lines.length > 0 ? page : undefined;
    }, 5000, "the second log line");
    expect(after.lines.map((entry) => entry.message).filter((message) => message.startsWith("received"))).toEqual(["received second"]);
    expect(after.lines.map((entry) => entry.message)).toContainEqual(expect.stringMatching(/^POST \/hello\/v1\/session 200 \d+ms$/));
    expect(after.lines[0]!.seq).toBeGreaterThan(before.next);
    expect(after.next).toBe(after.lines.at(-1)!.seq);

    // A cursor from an earlier process (past the newest line) starts over rather than going silent.
    const restarted = await readLogs("?after=999999");
    expect(restarted.lines.map((entry) => entry.message).filter((message) => message.startsWith("received"))).toEqual(["received first", "received second"]);

    const bad = await fetch("/hello/v1/logs?after=-1");
    expect(bad.status).toBe(400);
    expect((await bad.json()).error).toBe("invalid_request");
  });
});

describeHost("discovery routes under --bearer-token", () => helloOptions({ auth: { bearerToken: "s3cret" } }), (target) => {
  it("info and logs run the agent chain; meta needs no auth", async () => {
    const { fetch } = target();
    expect((await fetch("/hello/v1/info")).status).toBe(401);
    expect((await fetch("/hello/v1/logs")).status).toBe(401);
    expect((await fetch("/hello/v1/info", { headers: { authorization: "Bearer s3cret" } })).status).toBe(200);
    expect((await fetch("/hello/v1/logs", { headers: { authorization: "Bearer s3cret" } })).status).toBe(200);
    const meta = await fetch("/hello/v1/meta");
    expect(meta.status).toBe(200);
    expect((await meta.json()).name).toBe("Hello");
  });
});

describe("discovery in single mode under --dev", () => {
  it("meta reports an empty base path and the dev flag; info paths carry no slug", async () => {
    const host = createHost({ ...helloOptions(), mode: "single", dev: true, logger: quietLogger });
    try {
      expect(await (await host.request("/v1/meta")).json()).toMatchObject({ slug: "hello", dev: true, basePath: "" });
      const info = await (await host.request("/v1/info")).json();
      expect(info.channels[0].routes).toContainEqual({ method: "POST", path: "/v1/mcp", summary: expect.any(String) });
    } finally {
      await host.close();
    }
  });

  it("an explicitly configured model has no fallback notice or diagnostic", async () => {
    const host = createHost(
      helloOptions({ agents: [{ slug: "hello", project: project({ agent: { model: { id: "scripted", params: [{ id: "effort", value: "low" }] } } }) }] }),
    );
    try {
      const info = await (await host.request("/hello/v1/info")).json();
      expect(info.model).toEqual({ id: "scripted", params: { effort: "low" } });
      expect(info.diagnostics).toEqual([]);
    } finally {
      await host.close();
    }
  });
});
