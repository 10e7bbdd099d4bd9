/**
 * The host's HTTP behaviour on each runtime (docs/guide/embedding.md, "Bun and Deno"): the same
 * URL-driven suite against a fixture server started under Node, Bun and Deno (the `bun` and
 * `deno` npm packages), and the unchanged CLI (`bun <bin> serve`, `deno run -A <bin> serve`)
 * serving a project from disk.
 */
import { spawn, spawnSync } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { mkdtemp, mkdir, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { addAdapterTests } from "./_adapter-tests.ts";
import { postJson, readEvents } from "./_harness.ts";

const REPO = fileURLToPath(new URL("..", import.meta.url));
const BIN_DIR = join(REPO, "node_modules", ".bin");
const FIXTURE = join(REPO, "test", "fixtures", "adapter-server.ts");
const CLI = join(REPO, "bin", "agent-serve.mjs");

type Runtime = "node" | "bun" | "deno";

/** How each runtime runs a script; Node is the one running this test. */
function command(runtime: Runtime, script: string, args: string[] = []): [string, string[]] {
  if (runtime === "node") return [process.execPath, [script, ...args]];
  if (runtime === "bun") return [join(BIN_DIR, "bun"), [script, ...args]];
  return [join(BIN_DIR, "deno"), ["run", "-A", script, ...args]];
}

interface Started {
  child: ChildProcess;
  url: string;
  output: () => string;
}

/** Spawns `script` and resolves once it prints a URL matching `pattern`. */
function startProcess(runtime: Runtime, script: string, args: string[], pattern: RegExp, env: NodeJS.ProcessEnv = process.env): Promise<Started> {
  const [file, argv] = command(runtime, script, args);
  const child = spawn(file, argv, { cwd: REPO, env: { ...env, NO_COLOR: "1" }, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${runtime} did not start within 30 s:\n${output}`)), 30_000);
    const onData = (chunk: Buffer): void => {
      output += chunk.toString();
      const match = pattern.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve({ child, url: match[1] ?? "", output: () => output });
      }
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`${runtime} exited with ${code} before listening:\n${output}`));
    });
  });
}

async function stop(started: Started | undefined): Promise<void> {
  if (!started || started.child.exitCode !== null) return;
  const exited = new Promise((resolve) => started.child.once("exit", resolve));
  started.child.kill("SIGKILL");
  await exited;
}

for (const runtime of ["node", "bun", "deno"] as const) {
  describe(`HTTP suite through the ${runtime} adapter`, () => {
    let server: Started | undefined;
    beforeAll(async () => {
      server = await startProcess(runtime, FIXTURE, [], /listening (http:\/\/\S+) (\w+)/);
      // The fixture names the adapter it picked: the runtime really is the one under test.
      expect(server.output()).toContain(` ${runtime}`);
    });
    afterAll(() => stop(server));
    addAdapterTests({ url: () => server?.url ?? "", runtime });

    test(`[${runtime}] an explicit port that is taken fails with the hint, not a stack trace`, async () => {
      const blocker = createServer();
      await new Promise<void>((resolve) => blocker.listen(0, "127.0.0.1", resolve));
      try {
        const port = (blocker.address() as AddressInfo).port;
        const [file, argv] = command(runtime, FIXTURE);
        const result = spawnSync(file, argv, { cwd: REPO, env: { ...process.env, FIXTURE_PORT: String(port), NO_COLOR: "1" }, encoding: "utf8", timeout: 30_000 });
        expect(result.status).toBe(1);
        expect(result.stderr.trim()).toBe(`[agent-serve] [serve] port ${port} is in use; pass --port 0 for any free port`);
      } finally {
        await new Promise((resolve) => blocker.close(resolve));
      }
    });
  });
}

for (const runtime of ["bun", "deno"] as const) {
  describe(`the CLI unchanged on ${runtime}`, () => {
    let work = "";
    let server: Started | undefined;
    beforeAll(async () => {
      work = await mkdtemp(join(tmpdir(), `agent-serve-${runtime}-`));
      // No imports: on Deno a project resolves `agent-serve` only as an installed dependency.
      await mkdir(join(work, "echo", "bot"), { recursive: true });
      await writeFile(join(work, "echo", "package.json"), JSON.stringify({ name: "echo", private: true, type: "module" }));
      await writeFile(join(work, "echo", "bot", "agent.ts"), `const agent: { model: string } = { model: "scripted" };\nexport default agent;\n`);
      await writeFile(join(work, "echo", "bot", "instructions.md"), "Be brief.\n");
      const env: NodeJS.ProcessEnv = { ...process.env, AGENT_SERVE_CONFIG_DIR: join(work, "config") };
      delete env.OPENAI_API_KEY;
      delete env.ANTHROPIC_API_KEY;
      server = await startProcess(runtime, CLI, ["serve", join(work, "echo"), "--port", "0", "--state-root", join(work, "state")], /agent-serve listening on (http:\/\/\S+)/, env);
    });
    afterAll(async () => {
      await stop(server);
      if (work) await rm(work, { recursive: true, force: true });
    });

    test(`\`${runtime === "bun" ? "bun <bin>" : "deno run -A <bin>"} serve\` loads a project from disk and answers a turn`, async () => {
      const base = `${server!.url}/echo`;
      const created = await fetch(`${base}/v1/session`, postJson({ message: "hello" }));
      expect(created.status).toBe(200);
      const { sessionId } = (await created.json()) as { sessionId: string };
      const stream = await fetch(`${base}/v1/session/${sessionId}/stream`);
      const events = await readEvents(stream, (event) => event.type === "session.waiting", 10_000);
      expect(events.filter((event) => event.type === "message.completed").at(-1)?.data.text).toBe("echo: hello");
    });

    test(`/v1/info says what ${runtime} does not offer`, async () => {
      const info = (await (await fetch(`${server!.url}/echo/v1/info`)).json()) as { diagnostics: Array<{ code: string; message: string }> };
      const note = info.diagnostics.find((diagnostic) => diagnostic.code === "runtime_limits");
      expect(note?.message).toContain(runtime === "bun" ? "Bun" : "Deno");
      expect(note?.message).toContain("@cursor/bdk");
    });
  });
}
