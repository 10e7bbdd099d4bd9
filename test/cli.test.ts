import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { main } from "../cli/main.ts";
import { stateRootFor } from "../cli/start-host.ts";
import { createSqliteStorage } from "../drivers/sqlite/index.ts";
import { cliEnv, finished, killAfterEach, REPO, runCli, spawnCli, startServe } from "./_cli.ts";
import type { CliProcess } from "./_cli.ts";

const scratch = mkdtempSync(join(tmpdir(), "agent-serve-cli-"));
const env = cliEnv(join(scratch, "config"));
let n = 0;
const stateRoot = (): string => join(scratch, `state-${++n}`);
const pkg = JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")) as { version: string };

const running: CliProcess[] = killAfterEach();
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function writeProject(dir: string, files: Record<string, string>): string {
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(join(dir, file, ".."), { recursive: true });
    writeFileSync(join(dir, file), text);
  }
  return dir;
}

describe("agent-serve (spawned)", () => {
  test("version prints the package version", async () => {
    const result = await runCli(["version"], env);
    expect(result).toMatchObject({ code: 0, stdout: `${pkg.version}\n`, stderr: "" });
  });

  test("serve prints its URLs, serves the example, and exits 0 on SIGTERM", async () => {
    const root = stateRoot();
    const server = await startServe(["examples/hello", "--port", "0", "--state-root", root], env);
    running.push(server);
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(server.stdout()).toContain(`  hello  ${server.url}/hello  (model scripted)\n`);
    expect(server.stdout()).toContain(`         playground  ${server.url}/hello/playground\n`);
    expect(server.stdout()).toContain(`  docs  ${server.url}/docs\n`);
    // Every URL the banner prints leads somewhere: the agent's own URL to its playground.
    for (const url of [`${server.url}/hello`, `${server.url}/hello/playground`, `${server.url}/docs`]) {
      const page = await fetch(url);
      expect(page.status, url).toBe(200);
      expect(page.headers.get("content-type"), url).toMatch(/^text\/html/);
    }

    const health = await fetch(`${server.url}/hello/v1/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({ ok: true });
    expect((await fetch(`${server.url}/v1/health`)).status).toBe(200);

    const created = await fetch(`${server.url}/hello/v1/session`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ message: "ping" }),
    });
    expect(created.status).toBe(200);
    const { sessionId } = (await created.json()) as { sessionId: string };
    // The explicit state root holds the mount's data under its slug (multi mode).
    expect(existsSync(join(root, "hello"))).toBe(true);
    expect(sessionId).toMatch(/\S/);

    const stoppedAt = Date.now();
    server.child.kill("SIGTERM");
    const result = await finished(server, 15_000);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("shutting down");
    expect(Date.now() - stoppedAt).toBeLessThan(10_000);
  });

  test("--mode single serves the project unslugged at the root", async () => {
    const server = await startServe(["examples/hello", "--port", "0", "--mode", "single", "--state-root", stateRoot()], env);
    running.push(server);
    expect(server.stdout()).toContain(`  hello  ${server.url}  (model scripted)\n`);
    const response = await fetch(`${server.url}/v1/health`);
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ ok: true, name: "Hello" });
    expect((await fetch(`${server.url}/hello/v1/health`)).status).toBe(404);
  });

  test("--no-control-plane mounts the internal fire routes, which need the timed-work header", async () => {
    const plain = await startServe(["examples/hello", "--port", "0", "--mode", "single", "--state-root", stateRoot()], env);
    running.push(plain);
    const fire = (url: string, headers: Record<string, string> = {}) =>
      fetch(`${url}/v1/internal/reminders/rem_unknown/fire`, { method: "POST", headers });
    const absent = await fire(plain.url, { "x-agent-serve-timed-work": "1" });
    expect(absent.status).toBe(404);
    expect(await absent.json()).toMatchObject({ error: "not_found" });
    const platform = await startServe(["examples/hello", "--port", "0", "--mode", "single", "--no-control-plane", "--state-root", stateRoot()], env);
    running.push(platform);
    expect((await fire(platform.url)).status).toBe(403);
    const unknown = await fire(platform.url, { "x-agent-serve-timed-work": "1" });
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ error: "reminder_not_found" });
  });

  test("--bearer-token replaces loopback-only access", async () => {
    const server = await startServe(
      ["examples/hello", "--port", "0", "--bearer-token", "0123secret", "--state-root", stateRoot()],
      env,
    );
    running.push(server);
    expect((await fetch(`${server.url}/hello/v1/sessions`)).status).toBe(401);
    const ok = await fetch(`${server.url}/hello/v1/sessions`, { headers: { authorization: "Bearer 0123secret" } });
    expect(ok.status).toBe(200);
  });

  test("--bearer-token and --allow-anonymous together are refused", async () => {
    const result = await runCli(["serve", "examples/hello", "--bearer-token", "x", "--allow-anonymous"], env);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("mutually exclusive");
  });

  test("run prints the final reply", async () => {
    const result = await runCli(["run", "examples/hello", "--message", "hi", "--state-root", stateRoot()], env);
    expect(result).toMatchObject({ code: 0, stdout: "echo: hi\n" });
  });

  test("run keeps its session in <state-root>/state.db by default, and nothing with --storage memory:", async () => {
    const durable = stateRoot();
    expect(await runCli(["run", "examples/hello", "--message", "keep me", "--mode", "single", "--state-root", durable], env)).toMatchObject({ code: 0, stdout: "echo: keep me\n" });
    const storage = createSqliteStorage({ path: join(durable, "state.db"), readOnly: true });
    try {
      const records = (await storage.entries("sessions/")).filter(([key]) => key.endsWith("/record"));
      expect(records).toHaveLength(1);
    } finally {
      await storage.close();
    }
    const throwaway = stateRoot();
    expect(await runCli(["run", "examples/hello", "--message", "forget me", "--mode", "single", "--state-root", throwaway, "--storage", "memory:"], env)).toMatchObject({ code: 0, stdout: "echo: forget me\n" });
    expect(existsSync(join(throwaway, "state.db"))).toBe(false);
    // The environment chooses the store too; an explicit sqlite path is used as given in single mode.
    const elsewhere = join(stateRoot(), "elsewhere.db");
    const viaEnv = await runCli(["run", "examples/hello", "--message", "hi", "--mode", "single", "--state-root", stateRoot()], { ...env, AGENT_SERVE_STORAGE: `sqlite:${elsewhere}` });
    expect(viaEnv.code).toBe(0);
    expect(existsSync(elsewhere)).toBe(true);
  });

  test("run exits 1 and prints the message when the turn fails", async () => {
    const result = await runCli(["run", "examples/hello", "--message", "/fail model exploded", "--state-root", stateRoot()], env);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe("");
    expect(result.stderr).toContain("model exploded");
  });

  test("serve refuses to start on an error diagnostic and prints it", async () => {
    const dir = writeProject(join(scratch, "broken", "needs-instructions"), {
      "package.json": JSON.stringify({ name: "broken", type: "module" }),
      "bot/agent.ts": "export default {};\n",
    });
    const result = await runCli(["serve", dir, "--port", "0", "--state-root", stateRoot()], env);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("missing_instructions");
    expect(result.stderr).toContain("bot/instructions.md");
    expect(result.stdout).not.toContain("listening");
  });

  test("a reserved slug is named and stops serve", async () => {
    const parent = join(scratch, "reserved");
    writeProject(join(parent, "docs"), { "bot/instructions.md": "Hi.\n" });
    const result = await runCli(["serve", parent, "--port", "0", "--state-root", stateRoot()], env);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('slug "docs" is reserved');
  });
});

/** A Node older than 22.13 on this machine, if any: the bin must re-run itself under the bundled one. */
const oldNode = ["/usr/bin/node", "/usr/local/bin/node"].find((path) => {
  const version = spawnSync(path, ["--version"], { encoding: "utf8" }).stdout?.trim();
  const [major = 0, minor = 0] = (version ?? "").replace(/^v/, "").split(".").map(Number);
  return Boolean(version) && (major < 22 || (major === 22 && minor < 13));
});

test.skipIf(!oldNode)("on an old Node the bin re-runs under the bundled Node and forwards SIGTERM", async () => {
  const version = await finished(spawnCli(["version"], env, oldNode));
  expect(version).toMatchObject({ code: 0, stdout: `${pkg.version}\n` });
  const server = await startServe(["examples/hello", "--port", "0", "--state-root", stateRoot()], env, oldNode);
  running.push(server);
  expect((await fetch(`${server.url}/hello/v1/health`)).status).toBe(200);
  server.child.kill("SIGTERM");
  const result = await finished(server, 15_000);
  expect(result.code).toBe(0);
  expect(result.stdout).toContain("shutting down");
});

describe("main (in-process)", () => {
  function io() {
    let out = "";
    let err = "";
    return {
      stdout: { write: (chunk: string) => (out += chunk) },
      stderr: { write: (chunk: string) => (err += chunk) },
      env,
      cwd: REPO,
      out: () => out,
      err: () => err,
    };
  }

  test("version and --version print the version", async () => {
    for (const argv of [["version"], ["--version"]]) {
      const stdio = io();
      expect(await main({ argv, ...stdio })).toBe(0);
      expect(stdio.out()).toBe(`${pkg.version}\n`);
    }
  });

  test("help goes to the injected stdout", async () => {
    const stdio = io();
    expect(await main({ argv: ["serve", "--help"], ...stdio })).toBe(0);
    expect(stdio.out()).toContain("--state-root <dir>");
  });

  test.each([
    [["bogus"], "unknown command"],
    [["serve", "--port", "70000"], "--port must be an integer"],
    [["serve", "--mode", "both"], "--mode must be multi or single"],
    [["run", "examples/hello"], "run needs --message"],
    [["serve", "--allow-anonymous", "--bearer-token", "t"], "mutually exclusive"],
    [["run", "examples/hello", "--message", "hi", "--storage", "redis://127.0.0.1:6379/x"], "the database must be a number"],
    [["run", "examples/hello", "--message", "hi", "--storage", "mysql://x"], "--storage must be sqlite:<path>, memory:, redis://host:port or postgres://host/db"],
    [["run", "examples/hello", "--message", "hi", "--storage", "postgres://x"], "--storage postgres://x: no database"],
  ])("usage error %j exits 2", async (argv, message) => {
    const stdio = io();
    expect(await main({ argv, ...stdio })).toBe(2);
    expect(stdio.err()).toContain(message);
  });

  test("dev serves with --dev and stops when the injected signal aborts", async () => {
    let banner = "";
    let resolve: (url: string) => void = () => {};
    const listening = new Promise<string>((done) => (resolve = done));
    const stdio = {
      ...io(),
      stdout: {
        write: (chunk: string) => {
          banner += chunk;
          const url = /listening on (\S+)/.exec(banner)?.[1];
          if (url) resolve(url);
        },
      },
    };
    const stop = new AbortController();
    const done = main({ argv: ["dev", "examples/hello", "--port", "0", "--state-root", stateRoot()], ...stdio, signal: stop.signal });
    const url = await Promise.race([listening, done.then((code) => Promise.reject(new Error(`exited with ${code}`)))]);
    expect(banner).toContain("(dev)");
    expect((await fetch(`${url}/hello/v1/health`)).status).toBe(200);
    stop.abort();
    expect(await done).toBe(0);
  });
});

test("state roots: default in the project, explicit root gets the slug in multi mode only", () => {
  const common = { slug: "hello", projectDir: "/p/hello", cwd: "/work" };
  expect(stateRootFor({ ...common, mode: "multi" })).toBe("/p/hello/.agent-serve/hello");
  expect(stateRootFor({ ...common, mode: "single" })).toBe("/p/hello/.agent-serve");
  expect(stateRootFor({ ...common, mode: "multi", stateRoot: "state" })).toBe("/work/state/hello");
  expect(stateRootFor({ ...common, mode: "single", stateRoot: "/abs" })).toBe("/abs");
});
