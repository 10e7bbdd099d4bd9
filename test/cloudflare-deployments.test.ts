/**
 * Deployments and the alias token (docs/guide/cloudflare.md "Deployments and the alias token"):
 * `deploy`, `rotate-token`, `stop`, `deployments`, `deployment` and `--prod`, through the CLI.
 * A fake `wrangler` on PATH stands in for the user's own: it keeps the secrets it is given in a
 * folder and prints a worker URL; the test plays Cloudflare by (re)starting the built worker in
 * workerd (Miniflare) on that URL with those secrets after each command that would publish.
 */
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { Miniflare } from "miniflare";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { type CapturedCli, captureCli, cliJson } from "./_cli-io.ts";
import { miniflareOptions, readWranglerConfig } from "./_cloudflare.ts";
import { objectDatabases } from "./_durable-object-files.ts";
import { startOAuthMcpServer } from "./_oauth-mcp-server.ts";
import type { OAuthMcpServer } from "./_oauth-mcp-server.ts";
import { tempProjects } from "./_temp-projects.ts";

const repo = fileURLToPath(new URL("../", import.meta.url));
const FIXTURE = join(repo, "test/fixtures/cloudflare-project");
const scratch = mkdtempSync(join(tmpdir(), "agent-serve-cfdeployments-"));
const bin = join(scratch, "bin");
const secrets = join(scratch, "secrets");
const persist = join(scratch, "persist");
const deploymentsFile = join(scratch, "deployments.json");
const BEARER = "cf-deployments-bearer";
// The worker secret the tracker connection's header names: only the worker holds it.
const TRACKER_TOKEN = "tracker-secret-of-the-deployment";
// A third-party MCP server on loopback that admits the deployment's token (the account bridge's target).
let tracker: OAuthMcpServer;
const FAKE_WRANGLER = `#!/bin/sh
case "$1 $2" in
  "secret put") cat > "$FAKE_SECRETS/$3"; echo "Success! Uploaded secret $3" ;;
  "deployments list") cat "$FAKE_DEPLOYMENTS" ;;
  "deploy "*) echo "Uploaded worker"; echo "Deployed triggers"; echo "  $FAKE_WORKER_URL" ;;
esac
`;

// The fixture project, copied outside the repository so its deployment files land in a temp folder.
const project = tempProjects("cfdeployments");
// A channel that answers with the request headers it was given shows what passes the gate.
const HEADERS_CHANNEL = `import { GET, defineChannel } from "agent-serve/channels";
// Any query: a Standard Schema that admits every value.
const anyQuery = { "~standard": { version: 1, vendor: "test", validate: (value) => ({ value }) } };
export default defineChannel({
  routes: [GET("/seen", { description: "The request's header names", querySchema: anyQuery, handler: async (request) => ({ names: [...request.headers.keys()], url: request.url }) })],
});
`;
const dir = project({
  ...Object.fromEntries(["bot/agent.ts", "bot/instructions.md", "bot/schedules/nightly.md", "bot/schedules/weekdays.ts", "bot/tools/add.ts", "bot/tools/forget.ts"].map((file) => [file, readFileSync(join(FIXTURE, file), "utf8")])),
  "bot/channels/headers.ts": HEADERS_CHANNEL,
});
const outDir = join(dir, ".agent-serve", "cloudflare");
let url = "";
let mf: Miniflare | undefined;

const cli = (): CapturedCli =>
  captureCli({ ...process.env, NO_COLOR: "1", PATH: `${bin}${delimiter}${process.env.PATH ?? ""}`, FAKE_SECRETS: secrets, FAKE_DEPLOYMENTS: deploymentsFile, FAKE_WORKER_URL: url }, repo);
const json = (...argv: string[]): Promise<Record<string, unknown>> => cliJson(cli(), ...argv);

/** What Cloudflare would serve now: the last build with the secrets wrangler was given. */
async function publish(): Promise<void> {
  await mf?.dispose();
  const bindings: Record<string, string> = { AGENT_SERVE_BEARER_TOKEN: BEARER, TRACKER_TOKEN };
  for (const name of readdirSync(secrets)) bindings[name] = readFileSync(join(secrets, name), "utf8");
  const port = Number(new URL(url).port);
  mf = new Miniflare({ ...miniflareOptions(outDir, persist), bindings, host: "127.0.0.1", port });
  await mf.ready;
}

function get(path: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${url}${path}`, { headers: { authorization: `Bearer ${BEARER}`, ...headers } });
}

beforeAll(async () => {
  tracker = await startOAuthMcpServer();
  tracker.admit(TRACKER_TOKEN);
  // An HTTP connection whose header names a worker secret; the build bundles the file as written.
  mkdirSync(join(dir, "bot", "mcp-connections"));
  writeFileSync(join(dir, "bot", "mcp-connections", "tracker.ts"), `export default { url: ${JSON.stringify(tracker.mcpUrl)}, headers: { authorization: "Bearer \${TRACKER_TOKEN}" } };\n`);
  for (const folder of [bin, secrets, persist]) mkdirSync(folder);
  writeFileSync(join(bin, "wrangler"), FAKE_WRANGLER);
  chmodSync(join(bin, "wrangler"), 0o755);
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  url = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
});
afterAll(async () => {
  await mf?.dispose();
  await tracker.close();
  rmSync(scratch, { recursive: true, force: true });
});

describe("deployments and the alias token", () => {
  let token = "";
  let slug = "";
  const alias = (value: string) => ({ "x-agent-alias-token": value });

  test("the first deploy puts a new alias token as a worker secret, prints it once and records the URL", async () => {
    const first = await json("deploy", dir, "--target", "cloudflare", "--no-docs", "--no-playground");
    expect(first).toMatchObject({ ok: true, deployed: true, url });
    token = String(first.aliasToken);
    expect(token).toMatch(/^[\w-]{43}$/);
    expect(readFileSync(join(secrets, "AGENT_SERVE_ALIAS_TOKEN"), "utf8")).toBe(token);
    const state = join(outDir, "deployment.json");
    expect(statSync(state).mode & 0o777).toBe(0o600);
    slug = (JSON.parse(readFileSync(state, "utf8")) as { slugs: string[] }).slugs[0]!;
    await publish();
    // A later deploy keeps the token and does not print it.
    const again = await json("deploy", dir, "--target", "cloudflare", "--no-docs", "--no-playground");
    expect(again.aliasToken).toBeUndefined();
    expect(readFileSync(join(secrets, "AGENT_SERVE_ALIAS_TOKEN"), "utf8")).toBe(token);
    await publish();
  }, 120_000);

  test("every request but the health checks needs the token, before the agent's own auth", async () => {
    expect((await get(`/${slug}/v1/health`)).status).toBe(200);
    expect((await get("/v1/health")).status).toBe(200);
    const missing = await get(`/${slug}/v1/sessions`);
    expect(missing.status).toBe(401);
    expect(await missing.json()).toMatchObject({ ok: false, error: "alias_token_invalid" });
    expect((await get(`/${slug}/v1/sessions`, alias(`${token}x`))).status).toBe(401);
    expect((await get(`/${slug}/v1/sessions`, alias(token))).status).toBe(200);
    // The gate removes the token: a channel never sees it.
    const seen = await get(`/${slug}/v1/channels/headers/seen`, { ...alias(token), "x-other": "1" });
    expect(seen.status).toBe(200);
    const { names } = (await seen.json()) as { names: string[] };
    expect(names).toContain("x-other");
    expect(names).not.toContain("x-agent-alias-token");
    // Webhook senders that cannot add a header put it in the URL; it is gone from the URL too.
    const byQuery = await get(`/${slug}/v1/channels/headers/seen?a=1&agent_alias_token=${token}`);
    expect(byQuery.status).toBe(200);
    expect(((await byQuery.json()) as { url: string }).url).toMatch(/\/seen\?a=1$/);
    expect((await get(`/${slug}/v1/channels/headers/seen?agent_alias_token=wrong`)).status).toBe(401);
    // With the token the agent's own auth chain still applies.
    expect((await get(`/${slug}/v1/sessions`, { ...alias(token), authorization: "" })).status).toBe(401);
  });

  test("--prod commands reach the worker with the recorded URL and token", async () => {
    const called = await json("call", "add", "--prod", "--dir", dir, "--bearer-token", BEARER, "--input", '{"a":40,"b":2}');
    expect(called).toMatchObject({ ok: true, result: { sum: 42 } });
    expect(await json("sessions", "--prod", "--dir", dir, "--bearer-token", BEARER)).toMatchObject({ sessions: [] });
    const { run, err } = cli();
    expect(await run("sessions", "--prod", "--url", url, "--dir", dir)).toBe(2);
    expect(err()).toMatch(/--prod and --url exclude each other/);
  });

  test("rotate-token: the old token gets 401 at once, the new one works, --prod follows", async () => {
    const rotated = await json("rotate-token", "--dir", dir);
    const fresh = String(rotated.aliasToken);
    expect(fresh).not.toBe(token);
    expect(readFileSync(join(secrets, "AGENT_SERVE_ALIAS_TOKEN"), "utf8")).toBe(fresh);
    await publish();
    expect((await get(`/${slug}/v1/sessions`, alias(token))).status).toBe(401);
    expect((await get(`/${slug}/v1/sessions`, alias(fresh))).status).toBe(200);
    expect(await json("sessions", "--prod", "--dir", dir, "--bearer-token", BEARER)).toMatchObject({ sessions: [] });
    token = fresh;
  });

  test("the account bridge: the pod credential reaches the agent's connection with the worker's secret; rotate-pod-credential refuses the old one at once", async () => {
    const recorded = () => JSON.parse(readFileSync(join(outDir, "deployment.json"), "utf8")) as { podCredential: string };
    const pod = recorded().podCredential;
    expect(pod).toMatch(/^[\w-]{43}$/);
    expect(readFileSync(join(secrets, "AGENT_SERVE_POD_CREDENTIAL"), "utf8")).toBe(pod);
    const bridge = `${url}/${slug}/v1/host-account/tracker/mcp`;
    const whoami = async (credential: string): Promise<unknown> => {
      const client = new Client({ name: "outside-runtime", version: "1.0.0" });
      await client.connect(new StreamableHTTPClientTransport(new URL(bridge), { requestInit: { headers: { ...alias(token), authorization: `Bearer ${credential}` } } }));
      try {
        expect((await client.listTools()).tools.map((t) => t.name)).toEqual(["whoami"]);
        return (await client.callTool({ name: "whoami", arguments: {} })).content;
      } finally {
        await client.close();
      }
    };
    // The caller never holds the tracker's token: the worker adds it from its secret.
    expect(await whoami(pod)).toEqual([{ type: "text", text: `token ${TRACKER_TOKEN}` }]);
    const post = (headers: Record<string, string>, path = bridge) =>
      fetch(path, { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }) });
    const wrong = await post({ ...alias(token), authorization: `Bearer ${pod}x` });
    expect(wrong.status).toBe(401);
    expect(await wrong.json()).toMatchObject({ error: "pod_credential_invalid" });
    // The agent's own bearer token is no pod credential: the agent's chain never admits here.
    expect((await post({ ...alias(token), authorization: `Bearer ${BEARER}` })).status).toBe(401);
    expect((await post({ authorization: `Bearer ${pod}` })).status).toBe(401);
    const unknown = await post({ ...alias(token), authorization: `Bearer ${pod}` }, `${url}/${slug}/v1/host-account/nowhere/mcp`);
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ error: "connection_not_found", message: expect.stringMatching(/bridged connections: tracker/) });

    const rotated = await json("rotate-pod-credential", "--dir", dir);
    const fresh = String(rotated.podCredential);
    expect(fresh).not.toBe(pod);
    expect(recorded().podCredential).toBe(fresh);
    expect(readFileSync(join(secrets, "AGENT_SERVE_POD_CREDENTIAL"), "utf8")).toBe(fresh);
    await publish();
    expect((await post({ ...alias(token), authorization: `Bearer ${pod}` })).status).toBe(401);
    expect(await whoami(fresh)).toEqual([{ type: "text", text: `token ${TRACKER_TOKEN}` }]);
    // A later deploy keeps the credential.
    expect((await json("deploy", dir, "--target", "cloudflare", "--no-docs", "--no-playground")).podCredential).toBeUndefined();
    expect(recorded().podCredential).toBe(fresh);
    await publish();
  }, 120_000);

  test("deployments lists wrangler's deployments newest first; deployment shows the live one's status", async () => {
    writeFileSync(deploymentsFile, JSON.stringify([
      { id: "dep-old", created_on: "2026-11-01T10:00:00Z", source: "wrangler", author_email: "a@example.com", versions: [{ version_id: "v-old", percentage: 100 }] },
      { id: "dep-new", created_on: "2026-11-02T10:00:00Z", source: "wrangler", author_email: "a@example.com", versions: [{ version_id: "v-new", percentage: 100 }] },
    ]));
    const listed = await json("deployments", "--dir", dir);
    expect((listed.deployments as Array<{ id: string; live: boolean }>).map((d) => [d.id, d.live])).toEqual([["dep-new", true], ["dep-old", false]]);
    expect(await json("deployment", "--dir", dir, "--bearer-token", BEARER)).toMatchObject({ deployment: { id: "dep-new" }, status: "running", reasons: [] });
    expect(await json("deployment", "dep-old", "--dir", dir)).toMatchObject({ status: "superseded" });
    const { run, err } = cli();
    expect(await run("deployment", "dep-none", "--dir", dir)).toBe(1);
    expect(err()).toMatch(/no deployment "dep-none".*agent-serve deployments lists them: dep-new, dep-old/);
  });

  test("stop: 503 with a clear error, no schedule fires, until the next deploy", async () => {
    expect(await json("stop", "--dir", dir)).toMatchObject({ ok: true, stopped: true });
    await publish();
    const stopped = await get(`/${slug}/v1/sessions`, alias(token));
    expect(stopped.status).toBe(503);
    expect(await stopped.json()).toMatchObject({ error: "deployment_stopped", message: expect.stringMatching(/agent-serve deploy/) });
    expect(await json("deployment", "--dir", dir)).toMatchObject({ status: "stopped" });
    const { run, err } = cli();
    expect(await run("sessions", "--prod", "--dir", dir, "--bearer-token", BEARER)).toBe(1);
    expect(err()).toMatch(/this deployment is stopped/);

    // The nightly schedule's cron: stopped, its tick starts no task session (no new object).
    const cron = readWranglerConfig(outDir).triggers.crons[0]!;
    const nightly = new Date();
    nightly.setUTCHours(3, 0, 0, 0);
    if (nightly.getTime() <= Date.now()) nightly.setUTCDate(nightly.getUTCDate() + 1);
    const scheduled = async () => ((await mf!.getWorker()) as unknown as { scheduled(o: { cron: string; scheduledTime: Date }): Promise<unknown> }).scheduled({ cron, scheduledTime: new Date(nightly.getTime() + 1_000) });
    const before = (await objectDatabases(persist)).length;
    await scheduled();
    expect((await objectDatabases(persist)).length).toBe(before);

    // The next deploy is a new build: it serves, and the same tick now fires the schedule.
    await json("deploy", dir, "--target", "cloudflare", "--no-docs", "--no-playground");
    await publish();
    expect((await get(`/${slug}/v1/sessions`, alias(token))).status).toBe(200);
    await scheduled();
    expect((await objectDatabases(persist)).length).toBeGreaterThan(before);
  }, 120_000);
});
