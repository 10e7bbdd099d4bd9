/**
 * `agent-serve mcp oauth <connection>` (docs/guide/mcp.md "Connections that need OAuth"): the
 * authorization-code flow with PKCE against a loopback stand-in of an OAuth-protected MCP server
 * (./_oauth-mcp-server.ts), the browser played by a `BROWSER` script that follows the redirects
 * to the CLI's loopback listener; the tokens kept in the agent's store and used by the `mcp` tool
 * of a turn (`agent-serve run`), refreshed before they expire; `--list` and `--revoke`.
 */
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { checkConnection } from "../loader/harness/load-connections.ts";
import { type CapturedCli, captureCli, cliJson } from "./_cli-io.ts";
import { startOAuthMcpServer } from "./_oauth-mcp-server.ts";
import type { OAuthMcpServer } from "./_oauth-mcp-server.ts";
import { tempProjects } from "./_temp-projects.ts";
import { toolLine } from "./_workspace.ts";

const scratch = mkdtempSync(join(tmpdir(), "agent-serve-mcpoauth-"));
const browser = join(scratch, "browser");
const project = tempProjects("mcpoauth");
let server: OAuthMcpServer;
let dir = "";

const cli = (env: Record<string, string> = {}): CapturedCli => captureCli({ ...process.env, NO_COLOR: "1", BROWSER: browser, ...env }, scratch);
const json = (...argv: string[]): Promise<Record<string, unknown>> => cliJson(cli(), ...argv);

/** One turn through `agent-serve run` whose model calls the tracker's `whoami` tool; its results. */
async function whoami(): Promise<Array<{ isError: boolean; output: unknown }>> {
  const script = [toolLine("mcp", { server: "tracker", tool: "whoami" }), "/reply done"].join("\n");
  const ran = await json("run", dir, "--message", script);
  const { run, out, err } = cli();
  expect(await run("logs", String(ran.sessionId), "--dir", dir, "--json"), err()).toBe(0);
  const events = out().trim().split("\n").map((line) => JSON.parse(line) as { type: string; data: { isError: boolean; output: unknown } });
  return events.filter((event) => event.type === "action.result").map((event) => event.data);
}

beforeAll(async () => {
  server = await startOAuthMcpServer();
  // The browser: follows the authorization server's redirect to the CLI's loopback listener.
  writeFileSync(browser, `#!${process.execPath}\nfetch(process.argv[2]).then((r) => r.text()).catch(() => {});\n`);
  chmodSync(browser, 0o755);
  dir = project({
    "bot/agent.ts": `import { defineAgent } from "agent-serve";\nexport default defineAgent({ model: "scripted", tools: ["mcp"] });\n`,
    "bot/mcp-connections/tracker.ts": `import { defineConnection } from "agent-serve/connections";\nexport default defineConnection({ url: ${JSON.stringify(server.mcpUrl)}, oauth: true, description: "The issue tracker" });\n`,
    "bot/mcp-connections/plain.ts": `export default { url: ${JSON.stringify(`${server.url}/plain`)} };\n`,
  });
});
afterAll(async () => {
  await server.close();
  rmSync(scratch, { recursive: true, force: true });
});

describe("mcp oauth", () => {
  test("before authorization the tool says to run mcp oauth, and --list shows it not authorized", async () => {
    expect(await json("mcp", "oauth", "--list", "--dir", dir)).toMatchObject({ connections: [{ connection: "tracker", declared: true, status: "not authorized" }] });
    const [result] = await whoami();
    expect(result).toMatchObject({ isError: true, output: expect.stringMatching(/connection tracker needs OAuth authorization: run agent-serve mcp oauth tracker/) });
    expect(server.calls).toEqual([]);
  }, 60_000);

  test("the flow: discovery, registration, PKCE through the browser, tokens in the store and never printed", async () => {
    const done = await json("mcp", "oauth", "tracker", "--dir", dir);
    expect(done).toMatchObject({ ok: true, connection: "tracker", serverUrl: server.mcpUrl, issuer: server.url, clientId: "client-1", refreshable: true, scope: "tracker.read" });
    expect(JSON.stringify(done)).not.toMatch(/at-1|rt-1/);
    // The client registered its loopback redirect; the browser was sent with S256, state and resource.
    const redirect = server.clients.get("client-1")!.redirect_uris[0]!;
    expect(redirect).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    expect(server.authorizations[0]).toMatchObject({ client_id: "client-1", redirect_uri: redirect, code_challenge_method: "S256", resource: server.mcpUrl, scope: "tracker.read" });
    expect(server.grants).toEqual(["authorization_code"]);
    expect(await json("mcp", "oauth", "--list", "--dir", dir)).toMatchObject({ connections: [{ connection: "tracker", status: "authorized", refreshable: true }] });
  }, 60_000);

  test("a turn's mcp tool calls the server with the stored token", async () => {
    const [result] = await whoami();
    expect(result).toMatchObject({ isError: false, output: { content: [{ type: "text", text: "token at-1" }] } });
    expect(server.calls).toContain("at-1");
    expect(server.grants).toEqual(["authorization_code"]);
  }, 60_000);

  test("a token expiring within a minute is refreshed before use, and the rotated tokens are kept", async () => {
    server.expiresIn = 30;
    const { run, out, err } = cli({ BROWSER: "" });
    const flow = run("mcp", "oauth", "tracker", "--dir", dir, "--no-open");
    // Without a browser the URL is printed: the user (here the test) opens it.
    const shown = await until(() => /https?:\/\/\S+\/authorize\S+/.exec(out())?.[0]);
    await (await fetch(shown)).text();
    expect(await flow, err()).toBe(0);
    expect(server.grants).toEqual(["authorization_code", "authorization_code"]);
    server.expiresIn = 3600;
    const [first] = await whoami();
    expect(first).toMatchObject({ isError: false, output: { content: [{ text: "token at-3" }] } });
    expect(server.grants.at(-1)).toBe("refresh_token");
    // The refreshed token lives an hour: the next turn uses it without another refresh.
    const [second] = await whoami();
    expect(second).toMatchObject({ output: { content: [{ text: "token at-3" }] } });
    expect(server.grants.filter((g) => g === "refresh_token")).toHaveLength(1);
  }, 60_000);

  test("a token the server refuses before its expiry is renewed once with the refresh token, and the call made with the new one", async () => {
    server.forget("at-3");
    const callsBefore = server.calls.length;
    const [result] = await whoami();
    expect(result).toMatchObject({ isError: false, output: { content: [{ text: "token at-4" }] } });
    expect(server.grants.filter((g) => g === "refresh_token")).toHaveLength(2);
    // The refused attempt never reached the tool: one admitted call per tools/call and its handshake.
    expect(server.calls.slice(callsBefore).every((token) => token === "at-4")).toBe(true);
  }, 60_000);

  test("--revoke revokes at the server and removes the tokens: the next call is refused with the hint", async () => {
    expect(await json("mcp", "oauth", "tracker", "--revoke", "--dir", dir)).toMatchObject({ ok: true, removed: true, revokedAtServer: true });
    expect(server.revoked).toEqual(["rt-4", "at-4"]);
    expect(await json("mcp", "oauth", "--list", "--dir", dir)).toMatchObject({ connections: [{ connection: "tracker", status: "not authorized" }] });
    const [result] = await whoami();
    expect(result).toMatchObject({ isError: true, output: expect.stringMatching(/needs OAuth authorization/) });
  }, 60_000);

  test("the loader takes oauth on HTTP connections only, as true or {scopes, clientId}", () => {
    expect(checkConnection({ url: "https://mcp.example.com/mcp", oauth: true })).toEqual({ url: "https://mcp.example.com/mcp", oauth: true });
    expect(checkConnection({ url: "https://mcp.example.com/mcp", oauth: { scopes: ["a", "b"], clientId: "c" } })).toMatchObject({ oauth: { scopes: ["a", "b"], clientId: "c" } });
    expect(checkConnection({ command: "node", oauth: true })).toBe("oauth applies to HTTP connections ({url}) only");
    expect(checkConnection({ url: "https://mcp.example.com/mcp", oauth: { scope: "a" } })).toMatch(/oauth has unknown members: scope/);
    expect(checkConnection({ url: "https://mcp.example.com/mcp", oauth: { scopes: "a b" } })).toBe("oauth.scopes must be a list of scope names");
  });

  test("errors say what to do", async () => {
    const cases: Array<[string[], RegExp]> = [
      [["mcp", "oauth", "nowhere", "--dir", dir], /has no MCP connection "nowhere" \(its connections: plain, tracker/],
      [["mcp", "oauth", "plain", "--dir", dir], /connection plain does not take OAuth: add oauth: true/],
      [["mcp", "oauth", "--dir", dir], /needs a connection name/],
      [["mcp", "oauth", "tracker", "--revoke", "--dir", dir], /no stored authorization .*nothing to revoke/],
      [["mcp", "oauth", "tracker", "--url", "http://127.0.0.1:1", "--dir", dir], /--url does not apply to mcp oauth/],
    ];
    for (const [argv, message] of cases) {
      const { run, err } = cli();
      expect(await run(...argv), argv.join(" ")).not.toBe(0);
      expect(err()).toMatch(message);
    }
  });
});

async function until<T>(read: () => T | undefined, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = read();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error("timed out");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
