/**
 * `serve --oauth-issuer … --oauth-audience …` (docs/design/mcp-oauth-flags.md): the real CLI
 * process admits bearer tokens that are JWTs signed by a local authorization server (its metadata
 * and key set served on loopback by the test), publishes the MCP endpoints' protected-resource
 * metadata naming it, and refuses a missing, forged, expired or wrongly addressed token with the
 * `WWW-Authenticate` challenge MCP clients follow. Bad flag combinations are usage errors.
 */
import { createServer, type Server } from "node:http";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CliProcess, cliEnv, killAfterEach, runCli, startServe } from "./_cli.ts";

const scratch = mkdtempSync(join(tmpdir(), "agent-serve-oauth-"));
const env = cliEnv(join(scratch, "config"));
const running: CliProcess[] = killAfterEach();
const AUDIENCE = "urn:agent-serve:oauth-test";

let issuer = "";
let server: Server;
let signing: CryptoKeyPair;
let forger: CryptoKeyPair;

const encode = (value: unknown): string => Buffer.from(typeof value === "string" ? value : JSON.stringify(value)).toString("base64url");
async function jwt(claims: Record<string, unknown>, key = signing.privateKey, kid = "k1"): Promise<string> {
  const head = `${encode({ alg: "RS256", typ: "at+jwt", kid })}.${encode(claims)}`;
  const signature = await crypto.subtle.sign({ name: "RSASSA-PKCS1-v1_5" }, key, new TextEncoder().encode(head));
  return `${head}.${Buffer.from(signature).toString("base64url")}`;
}
const rsa = { name: "RSASSA-PKCS1-v1_5", modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: "SHA-256" };

beforeAll(async () => {
  signing = (await crypto.subtle.generateKey(rsa, true, ["sign", "verify"])) as CryptoKeyPair;
  forger = (await crypto.subtle.generateKey(rsa, true, ["sign", "verify"])) as CryptoKeyPair;
  const jwk = { ...(await crypto.subtle.exportKey("jwk", signing.publicKey)), kid: "k1", alg: "RS256", use: "sig" };
  server = createServer((request, response) => {
    response.setHeader("content-type", "application/json");
    if (request.url === "/.well-known/oauth-authorization-server") response.end(JSON.stringify({ issuer, jwks_uri: `${issuer}/jwks` }));
    else if (request.url === "/jwks") response.end(JSON.stringify({ keys: [jwk] }));
    else response.writeHead(404).end("{}");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address() as { port: number };
  issuer = `http://127.0.0.1:${address.port}`;
});
afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  rmSync(scratch, { recursive: true, force: true });
});

const listTools = (url: string, token?: string): Promise<Response> =>
  fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
  });

describe("serve --oauth-issuer", () => {
  it("admits the issuer's tokens for this audience, publishes the metadata, and refuses every other token", async () => {
    const served = await startServe(["examples/hello", "--port", "0", "--state-root", join(scratch, "state"), "--oauth-issuer", issuer, "--oauth-audience", AUDIENCE, "--oauth-scopes", "agent,tools"], env);
    running.push(served);
    const mcp = `${served.url}/hello/v1/mcp`;
    const metadataUrl = `${served.url}/.well-known/oauth-protected-resource/hello/v1/mcp`;

    const metadata = await fetch(metadataUrl);
    expect(metadata.status).toBe(200);
    expect(await metadata.json()).toMatchObject({ resource: mcp, authorization_servers: [issuer], bearer_methods_supported: ["header"], scopes_supported: ["agent", "tools"] });

    const missing = await listTools(mcp);
    expect(missing.status).toBe(401);
    expect(missing.headers.get("www-authenticate")).toBe(`Bearer resource_metadata="${metadataUrl}", scope="agent tools"`);

    const now = Math.floor(Date.now() / 1000);
    const good = { iss: issuer, aud: AUDIENCE, sub: "user-7", exp: now + 300, scope: "agent" };
    const admitted = await listTools(mcp, await jwt(good));
    expect(admitted.status).toBe(200);
    expect(JSON.stringify(await admitted.json())).toContain('"ask"');
    // An audience list naming this server is fine too.
    expect((await listTools(mcp, await jwt({ ...good, aud: ["other", AUDIENCE] }))).status).toBe(200);

    for (const [why, token] of [
      ["forged", await jwt(good, forger.privateKey)],
      ["expired", await jwt({ ...good, exp: now - 3600 })],
      ["another audience", await jwt({ ...good, aud: "urn:someone-else" })],
      ["another issuer", await jwt({ ...good, iss: "https://evil.example" })],
      ["no subject", await jwt({ ...good, sub: undefined })],
      ["not yet valid", await jwt({ ...good, nbf: now + 3600 })],
      ["not a JWT", "opaque-token"],
    ] as const) {
      const refused = await listTools(mcp, token);
      expect(refused.status, why).toBe(401);
      expect(refused.headers.get("www-authenticate"), why).toContain("resource_metadata=");
    }

    // The session API takes the same tokens, and the principal is the token's subject.
    const token = await jwt(good);
    const created = await fetch(`${served.url}/hello/v1/session`, { method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${token}` }, body: JSON.stringify({ message: "/reply hi" }) });
    expect(created.status).toBe(200);
    const { sessionId } = (await created.json()) as { sessionId: string };
    const mine = (await (await fetch(`${served.url}/hello/v1/sessions`, { headers: { authorization: `Bearer ${token}` } })).json()) as { sessions: Array<{ sessionId: string }> };
    expect(mine.sessions.map((session) => session.sessionId)).toEqual([sessionId]);
    // Another subject of the same issuer does not see it.
    const theirs = (await (await fetch(`${served.url}/hello/v1/sessions`, { headers: { authorization: `Bearer ${await jwt({ ...good, sub: "user-8" })}` } })).json()) as { sessions: unknown[] };
    expect(theirs.sessions).toEqual([]);
  }, 60_000);

  it("refuses incomplete or contradictory flags as usage errors", async () => {
    for (const [args, message] of [
      [["--oauth-issuer", "https://auth.example.com"], "--oauth-issuer needs --oauth-audience"],
      [["--oauth-audience", AUDIENCE], "go with --oauth-issuer"],
      [["--oauth-issuer", "not a url", "--oauth-audience", AUDIENCE], "absolute http(s) URL"],
      [["--oauth-issuer", "https://auth.example.com", "--oauth-audience", AUDIENCE, "--allow-anonymous"], "mutually exclusive"],
    ] as const) {
      const result = await runCli(["serve", "examples/hello", "--port", "0", ...args], env);
      expect(result.code, args.join(" ")).toBe(2);
      expect(result.stderr, args.join(" ")).toContain(message);
    }
  }, 60_000);
});
