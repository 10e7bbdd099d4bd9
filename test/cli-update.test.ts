/**
 * `update` and the passive update notice against a small local registry: at most one request per
 * 24 h, none under CI, with --json or off a terminal.
 */
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { serve } from "srvx";
import type { Server } from "srvx";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { VERSION } from "../cli/version.ts";
import { compareVersions } from "../cli/update-check.ts";
import { run, scratchDir } from "./_cli-io.ts";

const { dir: scratch, env: baseEnv } = scratchDir("cli-update");
let registry: Server;
let hits = 0;
let latest = "99.0.0";
let n = 0;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  registry = serve({
    port: 0,
    hostname: "127.0.0.1",
    silent: true,
    gracefulShutdown: false,
    fetch(request) {
      hits++;
      return new URL(request.url).pathname === "/agent-serve/latest" ? Response.json({ name: "agent-serve", version: latest }) : new Response("not found", { status: 404 });
    },
  });
  await registry.ready();
});
afterAll(async () => {
  await registry.close(true);
  rmSync(scratch, { recursive: true, force: true });
});
beforeEach(() => {
  // A fresh config dir (no cached check) per test, pointed at the local registry.
  env = { ...baseEnv, AGENT_SERVE_CONFIG_DIR: join(scratch, `config-${++n}`), AGENT_SERVE_REGISTRY_URL: registry.url ?? "" };
  delete env.CI;
  hits = 0;
  latest = "99.0.0";
});

describe("update", () => {
  it("says a newer version exists and how to install it; --json is parseable", async () => {
    const human = await run(["update"], { env });
    expect(human.code).toBe(0);
    expect(human.stdout).toContain(`agent-serve 99.0.0 is available (this is ${VERSION})`);
    expect(human.stdout).toContain("npm install agent-serve@latest");
    const json = await run(["update", "--json"], { env });
    expect(JSON.parse(json.stdout)).toMatchObject({ current: VERSION, latest: "99.0.0", updateAvailable: true, cached: false });
    // Asked explicitly, it asks the registry each time.
    expect(hits).toBe(2);
  });

  it("up to date, and an unreachable registry exits 1", async () => {
    latest = VERSION;
    expect((await run(["update"], { env })).stdout).toBe(`agent-serve ${VERSION} is the latest version\n`);
    const down = await run(["update"], { env: { ...env, AGENT_SERVE_REGISTRY_URL: "http://127.0.0.1:9" } });
    expect(down.code).toBe(1);
    expect(down.stderr).toContain("could not check http://127.0.0.1:9 for updates");
  });
});

describe("the passive notice", () => {
  it("asks at most once per 24 h and repeats the answer from the cache", async () => {
    for (let i = 0; i < 2; i++) {
      const result = await run(["version"], { env, tty: true });
      expect(result.stdout).toBe(`${VERSION}\n`);
      expect(result.stderr).toContain("agent-serve 99.0.0 is available");
    }
    expect(hits).toBe(1);
    const cache = join(env.AGENT_SERVE_CONFIG_DIR ?? "", "update-check.json");
    expect(JSON.parse(readFileSync(cache, "utf8"))).toMatchObject({ latest: "99.0.0" });

    // A day later it asks again.
    writeFileSync(cache, JSON.stringify({ checkedAt: new Date(Date.now() - 25 * 3600_000).toISOString(), latest: "98.0.0" }));
    await run(["version"], { env, tty: true });
    expect(hits).toBe(2);
  });

  it("is skipped under CI, with --json and off a terminal", async () => {
    const ci = await run(["version"], { env: { ...env, CI: "true" }, tty: true });
    expect(ci.stderr).toBe("");
    await run(["whoami", "--json"], { env, tty: true });
    await run(["version"], { env });
    expect(hits).toBe(0);
  });

  it("a failed check is not retried within the day", async () => {
    const down = { ...env, AGENT_SERVE_REGISTRY_URL: "http://127.0.0.1:9" };
    const result = await run(["version"], { env: down, tty: true });
    expect(result).toMatchObject({ code: 0, stderr: "" });
    const cache = JSON.parse(readFileSync(join(env.AGENT_SERVE_CONFIG_DIR ?? "", "update-check.json"), "utf8")) as { latest: unknown };
    expect(cache.latest).toBeNull();
    await run(["version"], { env, tty: true });
    expect(hits).toBe(0);
  });
});

it("compares versions numerically, pre-releases first", () => {
  expect(compareVersions("0.10.0", "0.9.9")).toBe(1);
  expect(compareVersions("1.0.0", "1.0.0")).toBe(0);
  expect(compareVersions("1.0.0-beta.1", "1.0.0")).toBe(-1);
  expect(compareVersions("v2.0.0", "1.99.99")).toBe(1);
});
