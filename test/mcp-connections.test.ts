/**
 * MCP connections, client side: `bot/mcp-connections/<name>.ts` loaded and called by
 * the `mcp` harness tool over stdio (a small server in `fixtures/`) and over Streamable HTTP (a
 * second host's own `/v1/mcp` on loopback), with `${NAME}` templates from the environment, and
 * failing closed under `local.sandbox`.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type NodeServer, serveNode } from "../adapters/node.ts";
import { loadProject } from "../loader/load-project.ts";
import { createLocalRuntime } from "../loader/runtime.ts";
import { createHost } from "../src/host/host.ts";
import type { AgentHost } from "../src/host/types.ts";
import type { ProjectDefinition } from "../src/base/definitions/project.ts";
import { createMemoryStorage } from "../src/base/storage/memory.ts";
import { type HostUnderTest, helloOptions, quietLogger } from "./_harness.ts";
import { results, toolLine, turn, writeProject } from "./_workspace.ts";

const FIXTURE = fileURLToPath(new URL("./fixtures/mcp-notes-server.ts", import.meta.url));
const base = "/conn";
const cleanup: string[] = [];
let peer: AgentHost;
let peerServer: NodeServer;

beforeAll(async () => {
  peer = createHost(helloOptions());
  peerServer = await serveNode(peer, { port: 0, silent: true });
});
afterAll(async () => {
  await peer.close();
  await peerServer.close(true);
  for (const dir of cleanup) rmSync(dir, { recursive: true, force: true });
});

async function loadWithConnections(extraAgent = ""): Promise<ProjectDefinition> {
  const root = writeProject({
    "package.json": JSON.stringify({ name: "conn", type: "module" }),
    "bot/agent.ts": `import { defineAgent } from "agent-serve";\nexport default defineAgent({ model: "scripted"${extraAgent} });\n`,
    "bot/instructions.md": "You use MCP servers.\n",
    "bot/mcp-connections/notes.ts": [
      `import { defineConnection } from "agent-serve/connections";`,
      `export default defineConnection({ command: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(FIXTURE)}], env: { NOTES_TOKEN: "\${TEST_NOTES_TOKEN}" }, description: "Team notes" });`,
    ].join("\n"),
    "bot/mcp-connections/peer.ts": `import { defineConnection } from "@cursor/bdk/connections";\nexport default defineConnection({ url: ${JSON.stringify(`${peerServer.url}/hello/v1/mcp`)}, headers: { "x-test": "\${TEST_NOTES_TOKEN}" } });\n`,
    "bot/mcp-connections/locked.ts": `export default { command: "true", env: { KEY: "\${TEST_UNSET_VARIABLE}" } };\n`,
  });
  cleanup.push(root);
  const loaded = await loadProject(root);
  // Without bubblewrap, `local.sandbox` adds a warning; MCP fails closed under the setting either way.
  expect(loaded.diagnostics.filter((d) => d.code !== "sandbox_unavailable")).toEqual([]);
  return loaded;
}

async function withHost<T>(loaded: ProjectDefinition, work: (target: HostUnderTest) => Promise<T>): Promise<T> {
  const stateRoot = mkdtempSync(join(tmpdir(), "agent-serve-conn-state-"));
  cleanup.push(stateRoot);
  const host = createHost({
    agents: [{ slug: "conn", project: loaded, storage: createMemoryStorage(), runtime: createLocalRuntime({ stateRoot, env: { TEST_NOTES_TOKEN: "s3cret" } }) }],
    logger: quietLogger,
    drainTimeoutMs: 50,
  });
  try {
    return await work({ kind: "in-process", host, fetch: (path, init = {}) => host.request(path, init, { ip: "127.0.0.1" }) });
  } finally {
    await host.close();
  }
}

describe("mcp connections", () => {
  it("lists and calls tools of a stdio server, with ${NAME} templates resolved from the environment", async () => {
    const loaded = await loadWithConnections();
    expect(loaded.connections?.["notes"]).toMatchObject({ command: process.execPath, description: "Team notes" });
    await withHost(loaded, async (target) => {
      const script = [
        toolLine("mcp", { server: "notes" }),
        toolLine("mcp", { server: "notes", tool: "echo", arguments: { text: "hello" } }),
        toolLine("mcp", { server: "notes", tool: "token" }),
        toolLine("mcp", { server: "notes", tool: "broken" }),
        toolLine("mcp", { server: "notes", tool: "missing" }),
        toolLine("mcp", { server: "nowhere" }),
        toolLine("mcp", { server: "locked", tool: "x" }),
        "/reply ok",
      ].join("\n");
      const { events } = await turn(target, base, script);
      const out = results(events);
      expect(out).toHaveLength(7);
      expect(out[0]).toMatchObject({ toolName: "mcp", isError: false });
      const listed = out[0]!["output"] as { server: string; tools: Array<{ name: string; description: string }> };
      expect(listed.server).toBe("notes");
      expect(listed.tools.map((t) => t.name)).toEqual(["echo", "token", "broken"]);
      expect(out[1]).toMatchObject({ isError: false, output: { content: [{ type: "text", text: "echo: hello" }], structuredContent: { echoed: "hello" } } });
      expect(out[2]).toMatchObject({ isError: false, output: { content: [{ type: "text", text: "s3cret" }] } });
      expect(out[3]).toMatchObject({ isError: true, output: { isError: true, content: [{ type: "text", text: "the notes store is offline" }] } });
      expect(out[4]).toMatchObject({ isError: true, output: expect.stringMatching(/^mcp: notes: .*no tool missing/) });
      expect(out[5]).toMatchObject({ isError: true, output: 'mcp: no server "nowhere"; servers: locked, notes, peer' });
      expect(out[6]).toMatchObject({ isError: true, output: "mcp: locked: environment variable TEST_UNSET_VARIABLE is not set" });
    });
  });

  it("calls a remote server over Streamable HTTP (another host's /v1/mcp)", async () => {
    await withHost(await loadWithConnections(), async (target) => {
      const script = [toolLine("mcp", { server: "peer" }), toolLine("mcp", { server: "peer", tool: "ask", arguments: { message: "/reply pong", waitSeconds: 10 } }), "/reply ok"].join("\n");
      const { events } = await turn(target, base, script);
      const out = results(events);
      const listed = out[0]!["output"] as { tools: Array<{ name: string }> };
      expect(listed.tools.map((t) => t.name)).toEqual(expect.arrayContaining(["ask", "check"]));
      expect(out[1]).toMatchObject({ isError: false, output: { structuredContent: { status: "waiting", reply: "pong" } } });
    });
  });

  it("fails closed under local.sandbox: no client is opened", async () => {
    await withHost(await loadWithConnections(", local: { sandbox: true }"), async (target) => {
      const { events } = await turn(target, base, [toolLine("mcp", { server: "notes", tool: "echo", arguments: { text: "x" } }), "/reply ok"].join("\n"));
      expect(results(events)[0]).toMatchObject({ isError: true, output: "mcp: MCP tool calls are disabled while local.sandbox is on (they fail closed)" });
    });
  });

  it("loading: invalid and unsupported connections are error diagnostics", async () => {
    const root = writeProject({
      "bot/instructions.md": "x",
      "bot/mcp-connections/empty.ts": "export default {};\n",
      "bot/mcp-connections/agent.ts": `export default { agent: "weather", description: "peer" };\n`,
      "bot/mcp-connections/ftp.ts": `export default { url: "ftp://example.test/" };\n`,
      "bot/mcp-connections/args.ts": `export default { command: "x", args: "not-a-list" };\n`,
    });
    cleanup.push(root);
    const loaded = await loadProject(root);
    const problems = loaded.diagnostics.filter((d) => d.code === "invalid_connection").map((d) => [d.file, d.message]);
    expect(problems).toEqual([
      ["bot/mcp-connections/agent.ts", "bot/mcp-connections/agent.ts: peer-agent connections ({agent}) are not supported by this host"],
      ["bot/mcp-connections/args.ts", "bot/mcp-connections/args.ts: args must be a list of strings"],
      ["bot/mcp-connections/empty.ts", "bot/mcp-connections/empty.ts: needs url (HTTP) or command (stdio)"],
      ["bot/mcp-connections/ftp.ts", "bot/mcp-connections/ftp.ts: url must be http: or https:"],
    ]);
    expect(loaded.connections).toEqual({});
  });

  it("/v1/info lists connections without their headers or env", async () => {
    const loaded = await loadWithConnections();
    await withHost(loaded, async (target) => {
      const info = (await (await target.fetch(`${base}/v1/info`)).json()) as { mcpConnections: Array<Record<string, unknown>> };
      expect(info.mcpConnections.map((c) => [c["name"], c["transport"]])).toEqual([
        ["locked", "stdio"],
        ["notes", "stdio"],
        ["peer", "http"],
      ]);
      expect(JSON.stringify(info.mcpConnections)).not.toContain("TEST_NOTES_TOKEN");
    });
  });
});
