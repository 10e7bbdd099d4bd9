/**
 * A deployment built with `--out` is found without it (docs/guide/cloudflare.md "Deployments and
 * the alias token"): `--prod`, `rotate-token`, `stop` and `deployments` run without `--out` reach
 * the worker the project's last deploy published, wherever its build folder is. A fake `wrangler`
 * on PATH keeps the secrets it is given and logs the config each run names; a loopback server
 * stands in for the published worker, checking the alias token against the current secret.
 */
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { Server } from "node:http";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { main } from "../cli/main.ts";
import { tempProjects } from "./_temp-projects.ts";

const repo = fileURLToPath(new URL("../", import.meta.url));
const FIXTURE = join(repo, "test/fixtures/cloudflare-project");
const scratch = mkdtempSync(join(tmpdir(), "agent-serve-cfout-"));
const bin = join(scratch, "bin");
const secrets = join(scratch, "secrets");
const configs = join(scratch, "configs.log");
const FAKE_WRANGLER = `#!/bin/sh
# Logs "<command> <config>" per run; keeps secrets in $FAKE_SECRETS; prints the worker URL on deploy.
for last; do :; done
echo "$1 $2 $last" >> "$FAKE_CONFIGS"
case "$1 $2" in
  "secret put") cat > "$FAKE_SECRETS/$3"; echo "Success! Uploaded secret $3" ;;
  "deployments list") echo '[{"id":"dep-1","created_on":"2026-11-02T10:00:00Z","source":"wrangler","author_email":"a@example.com","versions":[]}]' ;;
  "deploy "*) echo "Uploaded worker"; echo "  $FAKE_WORKER_URL" ;;
esac
`;

const project = tempProjects("cfout");
const dir = project(Object.fromEntries(["bot/agent.ts", "bot/instructions.md", "bot/tools/add.ts"].map((file) => [file, readFileSync(join(FIXTURE, file), "utf8")])));
const out = join(scratch, "dist", "worker");
let url = "";
let worker: Server;
const seen: string[] = [];

function cli() {
  let stdout = "";
  let stderr = "";
  const io = {
    stdout: { write: (s: string) => (stdout += s) },
    stderr: { write: (s: string) => (stderr += s) },
    env: { ...process.env, NO_COLOR: "1", PATH: `${bin}${delimiter}${process.env.PATH ?? ""}`, FAKE_SECRETS: secrets, FAKE_CONFIGS: configs, FAKE_WORKER_URL: url },
    cwd: scratch,
  };
  return { out: () => stdout, err: () => stderr, run: (...argv: string[]) => main({ ...io, argv }) };
}

async function json(...argv: string[]): Promise<Record<string, unknown>> {
  const { run, out: printed, err } = cli();
  const code = await run(...argv, "--json");
  expect(code, `${printed()}${err()}`).toBe(0);
  return JSON.parse(printed()) as Record<string, unknown>;
}

const loggedConfigs = (): string[] => readFileSync(configs, "utf8").trim().split("\n");

beforeAll(async () => {
  for (const folder of [bin, secrets]) mkdirSync(folder, { recursive: true });
  writeFileSync(join(bin, "wrangler"), FAKE_WRANGLER);
  chmodSync(join(bin, "wrangler"), 0o755);
  // The published worker, as far as these commands see it: an open health check, the gate's token
  // check against the secret wrangler was last given, and an empty session list behind it.
  worker = createServer((request, response) => {
    seen.push(`${request.method} ${request.url}`);
    const token = existsSync(join(secrets, "AGENT_SERVE_ALIAS_TOKEN")) ? readFileSync(join(secrets, "AGENT_SERVE_ALIAS_TOKEN"), "utf8") : undefined;
    response.setHeader("content-type", "application/json");
    const health = /^\/([^/]+)\/v1\/health$/.exec(request.url ?? "");
    if (health) {
      response.end(JSON.stringify({ ok: true, slug: health[1] }));
      return;
    }
    if (token === undefined || request.headers["x-agent-alias-token"] !== token) {
      response.writeHead(401).end(JSON.stringify({ ok: false, error: "alias_token_invalid" }));
      return;
    }
    response.end(JSON.stringify({ ok: true, sessions: [] }));
  });
  await new Promise<void>((resolve) => worker.listen(0, "127.0.0.1", resolve));
  const address = worker.address();
  url = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
});
afterAll(async () => {
  await new Promise((resolve) => worker.close(resolve));
  rmSync(scratch, { recursive: true, force: true });
});

describe("a deployment built with --out", () => {
  test("--prod, rotate-token, deployments and stop find it without --out", async () => {
    const deployed = await json("deploy", dir, "--target", "cloudflare", "--out", out, "--no-docs", "--no-playground");
    expect(deployed).toMatchObject({ ok: true, deployed: true, url, outDir: out });
    expect(existsSync(join(dir, ".agent-serve", "cloudflare", "deployment.json"))).toBe(false);
    const first = String(deployed.aliasToken);

    const listed = await json("sessions", "--prod", "--dir", dir);
    expect(listed).toMatchObject({ sessions: [] });
    const slug = (JSON.parse(readFileSync(join(out, "deployment.json"), "utf8")) as { slugs: string[] }).slugs[0]!;
    expect(seen).toContain(`GET /${slug}/v1/sessions`);

    // rotate-token puts the secret on the --out build's worker and records the new token there.
    const rotated = await json("rotate-token", "--dir", dir);
    const fresh = String(rotated.aliasToken);
    expect(fresh).not.toBe(first);
    expect(rotated.state).toBe(join(out, "deployment.json"));
    expect(loggedConfigs().at(-1)).toBe(`secret put ${join(out, "wrangler.jsonc")}`);
    expect(await json("sessions", "--prod", "--dir", dir)).toMatchObject({ sessions: [] });

    expect(await json("deployments", "--dir", dir)).toMatchObject({ deployments: [{ id: "dep-1", live: true }] });
    expect(loggedConfigs().at(-1)).toBe(`deployments list ${join(out, "wrangler.jsonc")}`);

    expect(await json("stop", "--dir", dir)).toMatchObject({ stopped: true });
    expect(loggedConfigs().at(-1)).toBe(`secret put ${join(out, "wrangler.jsonc")}`);
    expect((JSON.parse(readFileSync(join(out, "deployment.json"), "utf8")) as { stoppedBuildId?: string }).stoppedBuildId).toBeTruthy();
  }, 120_000);

  test("the last deploy wins: a later deploy without --out is the one found", async () => {
    await json("deploy", dir, "--target", "cloudflare", "--no-docs", "--no-playground");
    const rotated = await json("rotate-token", "--dir", dir);
    expect(rotated.state).toBe(join(dir, ".agent-serve", "cloudflare", "deployment.json"));
    // --out still picks a build folder explicitly.
    expect((await json("rotate-token", "--dir", dir, "--out", out)).state).toBe(join(out, "deployment.json"));
  }, 120_000);

  test("without any deployment the error names the project's default folder", async () => {
    const other = project({ "bot/agent.ts": readFileSync(join(FIXTURE, "bot/agent.ts"), "utf8") });
    const { run, err } = cli();
    expect(await run("sessions", "--prod", "--dir", other)).toBe(1);
    expect(err()).toContain(`no deployment is recorded in ${join(other, ".agent-serve", "cloudflare", "deployment.json")}`);
  });
});
