/**
 * The package as a user gets it (docs/guide/embedding.md, "Installing"): `npm pack`, install the
 * tarball with `node@22` into a fresh app with the newest npm (which runs a dependency's install
 * script only when the app approves it), then use the bin, import the library in-process,
 * type-check against the shipped `.d.ts`, and run the bin on Bun and Deno. Installs from the npm
 * registry, so the whole file shares one install.
 */
import { execFile, spawn, spawnSync } from "node:child_process";
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, test } from "vitest";

const run = promisify(execFile);
const REPO = fileURLToPath(new URL("..", import.meta.url));
const BIN_DIR = join(REPO, "node_modules", ".bin");
const { version } = JSON.parse(await readFile(join(REPO, "package.json"), "utf8")) as { version: string };

/** A Node older than 22.13 on this machine, if any (the system Node here is 20). */
const oldNode = ["/usr/bin/node", "/usr/local/bin/node", ...whichAll("node")].find((path) => {
  const found = spawnSync(path, ["--version"], { encoding: "utf8" }).stdout?.trim();
  const [major = 0, minor = 0] = (found ?? "").replace(/^v/, "").split(".").map(Number);
  return Boolean(found) && (major < 22 || (major === 22 && minor < 13));
});
const NO_OLD_NODE = oldNode ? "" : " (skipped: no Node older than 22.13 on this machine)";

/** The npm that installs the app (docs/design/packaging.md, "npm 12 and install scripts"). */
const NPM = await newestNpm();
const NPM_MISSING = NPM.missing ? ` (skipped: ${NPM.missing})` : "";

let work = "";
let app = "";
let tarball = "";
/** Dependencies whose install scripts the app's install reported blocked. */
let blocked: string[] = [];
/** The bin on the old Node while node@22's install script was blocked, before the app approved it. */
let beforeApproval: { status: number | null; stdout: string; stderr: string } | undefined;

/**
 * A user's shell: none of the `npm_*` variables of the `npm test` running this file (they carry
 * the checkout's own .npmrc settings), and the newest npm first on PATH, so that npm is also the
 * one that install scripts calling `npm` (node@22's) find.
 */
function userEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of Object.keys(env)) if (/^npm_/i.test(name)) delete env[name];
  if (NPM.binDir) env.PATH = `${NPM.binDir}:${env.PATH ?? ""}`;
  return env;
}

/** The app's own environment: its `node_modules/.bin` first, as `npx` and npm scripts have it. */
function appEnv(): NodeJS.ProcessEnv {
  const env = userEnv();
  env.PATH = `${join(app, "node_modules", ".bin")}:${env.PATH ?? ""}`;
  for (const name of ["OPENAI_API_KEY", "ANTHROPIC_API_KEY", "NODE_OPTIONS", "VITEST"]) delete env[name];
  env.AGENT_SERVE_CONFIG_DIR = join(work, "config");
  return env;
}

async function inApp(command: string, args: string[], timeout = 60_000): Promise<{ stdout: string; stderr: string }> {
  return run(command, args, { cwd: app, env: appEnv(), timeout, encoding: "utf8" });
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), "agent-serve-pack-"));
  app = join(work, "app");
  // `npm pack` runs `prepare`, which builds dist/ from the sources being tested.
  const packed = await run("npm", ["pack", "--pack-destination", work, "--silent"], { cwd: REPO, encoding: "utf8", timeout: 120_000 });
  tarball = join(work, packed.stdout.trim().split("\n").pop() ?? "");
  await mkdir(app, { recursive: true });
  await writeFile(join(app, "package.json"), JSON.stringify({ name: "app", private: true, type: "module" }));
  const installed = await run(
    "npm",
    ["install", "--no-audit", "--no-fund", "--prefer-offline", "--loglevel=warn", tarball, "node@22", "@types/node@^22"],
    { cwd: app, env: userEnv(), encoding: "utf8", timeout: 240_000 },
  );
  blocked = blockedScripts(`${installed.stdout}\n${installed.stderr}`);
  if (blocked.includes("node")) {
    // What a user on Node 20 sees next, then the one approval the package asks for.
    const bin = join(app, "node_modules", "agent-serve", "bin", "agent-serve.mjs");
    if (oldNode) beforeApproval = spawnSync(oldNode, [bin, "version"], { cwd: app, encoding: "utf8", env: { PATH: "/usr/bin:/bin" } });
    await run("npm", ["install-scripts", "approve", "node"], { cwd: app, env: userEnv(), encoding: "utf8", timeout: 60_000 });
    await run("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline", "--loglevel=error"], { cwd: app, env: userEnv(), encoding: "utf8", timeout: 240_000 });
  }
  await writeProject(join(app, "echo"), `import { defineAgent, defineTool } from "agent-serve";\n`);
  // An Agent SDK project: its module names alias to the installed package.
  await writeProject(join(app, "sdk"), `import { defineAgent } from "@cursor/bdk";\nimport { defineTool } from "@cursor/bdk/tools";\n`);
}, 400_000);

afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
  if (NPM.prefix) await rm(NPM.prefix, { recursive: true, force: true });
});

describe("the packed tarball", () => {
  test("ships dist/, the bin, the playground and docs pages, and no sources, tests or benches", async () => {
    const { stdout } = await run("tar", ["tzf", tarball], { encoding: "utf8" });
    const files = stdout.trim().split("\n").map((line) => line.replace(/^package\//, ""));
    for (const needed of ["package.json", "README.md", "bin/agent-serve.mjs", "dist/src/index.js", "dist/src/index.d.ts", "dist/adapters/node.js", "dist/adapters/bun.js", "dist/adapters/deno.js", "dist/cli/main.js", "playground/index.html", "docs/guide/getting-started.md"]) {
      expect(files).toContain(needed);
    }
    const stray = files.filter((file) => /^(src|test|bench|cli|adapters|loader|drivers|examples|scripts)\//.test(file) || /\.test\.|(?<!\.d)\.ts$/.test(file));
    expect(stray).toEqual([]);
  });
});

describe("installed into a fresh app", () => {
  test(`npm ${NPM.version} blocks the install scripts of node@22 and esbuild, no others${NPM_MISSING}`, (context) => {
    if (NPM.missing) return context.skip();
    // The local tarball's own `prepare` is listed too: npm counts `prepare` for packages installed
    // from a file. An install from the registry has no such entry.
    expect(blocked.filter((name) => name !== "agent-serve").sort()).toEqual(["esbuild", "node"]);
  });

  test("`npx agent-serve version` prints the package version", async () => {
    const { stdout } = await inApp("npx", ["--no-install", "agent-serve", "version"]);
    expect(stdout.trim()).toBe(version);
  });

  test("`npx agent-serve run` answers one turn with the scripted model", async () => {
    const { stdout } = await inApp("npx", ["--no-install", "agent-serve", "run", "echo", "--message", "hi"]);
    expect(stdout.trim()).toBe("echo: hi");
  });

  test("`agent-serve serve` serves the playground and the /docs pages from the installed files", async () => {
    // The installed bin itself (as `npx` finds it), so the signal below reaches the server.
    const bin = join(app, "node_modules", ".bin", "agent-serve");
    const child = spawn(bin, ["serve", "echo", "--port", "0", "--state-root", join(work, "state")], {
      cwd: app,
      env: appEnv(),
      stdio: ["ignore", "pipe", "pipe"],
    });
    try {
      let output = "";
      const url = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`not listening within 30 s:\n${output}`)), 30_000);
        const onData = (chunk: Buffer): void => {
          output += chunk.toString();
          const match = /agent-serve listening on (http:\/\/\S+)/.exec(output);
          if (match) {
            clearTimeout(timer);
            resolve(match[1]!);
          }
        };
        child.stdout.on("data", onData);
        child.stderr.on("data", onData);
      });
      const docs = await fetch(`${url}/docs/guide/embedding`);
      expect(docs.status).toBe(200);
      expect(await docs.text()).toContain("Installing and embedding");
      const playground = await fetch(`${url}/echo/playground`);
      expect(playground.status).toBe(200);
      expect(playground.headers.get("content-type")).toContain("text/html");
      expect(output).not.toContain("playground unavailable");
    } finally {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      await exited;
    }
  });

  test("an Agent SDK project (`@cursor/bdk` imports) runs unchanged", async () => {
    const { stdout } = await inApp("npx", ["--no-install", "agent-serve", "run", "sdk", "--message", "from the sdk"]);
    expect(stdout.trim()).toBe("echo: from the sdk");
  });

  test("a script answers a session in-process from plain Requests", async () => {
    await writeFile(
      join(app, "in-process.mjs"),
      `import { createHost, defineTool } from "agent-serve";
import { createScriptedModel } from "agent-serve/testing";
const model = createScriptedModel();
const host = createHost({
  agents: [{ slug: "bot", project: { name: "Bot", agent: {}, instructions: "Be brief.", diagnostics: [] } }],
  models: { resolve: () => model },
});
const created = await host.fetch(new Request("http://localhost/bot/v1/session", {
  method: "POST", headers: { host: "localhost", "content-type": "application/json" }, body: JSON.stringify({ message: "/reply in process" }),
}), { ip: "127.0.0.1" });
const { sessionId } = await created.json();
const stream = await host.fetch(new Request(\`http://localhost/bot/v1/session/\${sessionId}/stream\`, { headers: { host: "localhost" } }), { ip: "127.0.0.1" });
// The stream follows the session live; read lines until it waits for the next message.
const reader = stream.body.pipeThrough(new TextDecoderStream()).getReader();
let buffer = "";
let text;
while (text === undefined) {
  const { value, done } = await reader.read();
  if (done) throw new Error("stream ended");
  buffer += value;
  const lines = buffer.split("\\n");
  buffer = lines.pop();
  for (const line of lines.filter(Boolean)) {
    const event = JSON.parse(line);
    if (event.type === "message.completed") text = event.data.text;
  }
}
await reader.cancel();
console.log(created.status, text, typeof defineTool);
await host.close();
`,
    );
    const { stdout } = await inApp("node", ["in-process.mjs"]);
    expect(stdout.trim()).toBe("200 in process function");
  });

  test("`tsc --noEmit` type-checks against the shipped .d.ts of agent-serve, /tools, /channels and the adapters", async () => {
    await writeFile(
      join(app, "tsconfig.json"),
      JSON.stringify({ compilerOptions: { module: "nodenext", target: "es2023", strict: true, noEmit: true, types: ["node"], lib: ["es2023", "dom"] }, include: ["typed.ts"] }),
    );
    await writeFile(
      join(app, "typed.ts"),
      `import { createHost, defineAgent, type AgentHost } from "agent-serve";
import { defineTool } from "agent-serve/tools";
import { bearerAuth, type AuthPolicy } from "agent-serve/channels";
import { serveProject } from "agent-serve/node";
import { serve as serveOnBun } from "agent-serve/bun";
import { serve as serveOnDeno } from "agent-serve/deno";
export const agent = defineAgent({ model: "scripted" });
export const tool = defineTool({ description: "Adds", inputSchema: { type: "object", properties: {} }, execute: async () => "ok" });
export const policy: AuthPolicy = bearerAuth("secret");
export const host: AgentHost = createHost({ agents: [] });
export const served: Promise<{ server: { url: string } }> = serveProject(".");
// The Bun and Deno adapters type-check without Bun's or Deno's own type packages.
export const elsewhere: Array<typeof serveOnBun | typeof serveOnDeno> = [serveOnBun, serveOnDeno];
// Resolved types, not \`any\`: a wrong call must fail to compile.
// @ts-expect-error agents must be a list of mounts
createHost({ agents: 42 });
`,
    );
    // The checkout's compiler; what matters is that it resolves agent-serve from the app.
    const result = await inApp(join(BIN_DIR, "tsc"), ["-p", "tsconfig.json"]).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? String(error), stderr: "" }));
    expect(result.stdout).toBe("");
    // The types came from dist/, the only TypeScript the package ships.
    const installed = await readdir(join(app, "node_modules", "agent-serve"));
    expect(installed.sort()).toEqual(expect.arrayContaining(["bin", "dist", "package.json"]));
    expect(installed).not.toContain("src");
  });

  test("`agent-serve build --target cloudflare` bundles the installed dist/ for workerd", async () => {
    const { stdout } = await inApp("npx", ["--no-install", "agent-serve", "build", "echo", "--target", "cloudflare", "--out", "cf", "--no-docs", "--no-playground", "--json"], 120_000);
    expect(JSON.parse(stdout)).toMatchObject({ ok: true, config: { main: "worker.mjs", durable_objects: { bindings: [{ name: "AGENT_SESSION" }, { name: "AGENT_COORDINATOR" }] } } });
    if (!NPM.missing) {
      // esbuild's install script, which npm blocked, only swaps its CLI's JavaScript launcher for
      // the native binary; the build above used the binary from esbuild's platform package.
      const launcher = await readFile(join(app, "node_modules", "esbuild", "bin", "esbuild"), "utf8");
      expect(launcher.startsWith("#!/usr/bin/env node")).toBe(true);
    }
    const bundle = await readFile(join(app, "cf", "worker.mjs"), "utf8");
    // esbuild names each input in a comment: the host's modules come from the compiled package.
    expect(bundle).toMatch(/^\/\/ node_modules\/agent-serve\/dist\/adapters\/cloudflare\/worker\.js$/m);
    expect(bundle).not.toMatch(/^\/\/ .*agent-serve\/(src|adapters|loader)\/.*\.ts$/m);
    expect(bundle).not.toMatch(/\bfrom\s*["']node:/);
  }, 120_000);

  test("`bun <bin> run` and `deno run -A <bin> run` work from the installed package", async () => {
    const bin = join(app, "node_modules", "agent-serve", "bin", "agent-serve.mjs");
    const onBun = await inApp(join(BIN_DIR, "bun"), [bin, "run", "echo", "--message", "on bun"]);
    expect(onBun.stdout.trim()).toBe("echo: on bun");
    const onDeno = await inApp(join(BIN_DIR, "deno"), ["run", "-A", bin, "run", "echo", "--message", "on deno"]);
    expect(onDeno.stdout.trim()).toBe("echo: on deno");
  });
});

describe("on an unsupported Node", () => {
  test(`the bin says in one line what it needs, without a stack trace${NO_OLD_NODE}`, async (context) => {
    if (!oldNode) return context.skip();
    // The package alone, without a `node` package anywhere to fall back on.
    const bare = join(work, "bare");
    await mkdir(bare, { recursive: true });
    await run("tar", ["xzf", tarball, "-C", bare]);
    const result = spawnSync(oldNode, [join(bare, "package", "bin", "agent-serve.mjs"), "version"], { cwd: bare, encoding: "utf8", env: { PATH: "/usr/bin:/bin" } });
    expect(result.status).toBe(1);
    expect(result.stdout).toBe("");
    const lines = result.stderr.trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^agent-serve: needs Node\.js 22\.13 or newer \(this is v\d+\.\d+\.\d+\); .*npm install node@22/);
  });

  test(`with \`node@22\` installed but its install script blocked, the bin names the approval to add${NO_OLD_NODE}${NPM_MISSING}`, (context) => {
    if (!oldNode || NPM.missing) return context.skip();
    expect(beforeApproval?.status).toBe(1);
    expect(beforeApproval?.stdout).toBe("");
    const lines = beforeApproval?.stderr.trim().split("\n") ?? [];
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^agent-serve: needs Node\.js 22\.13 or newer \(this is v\d+\.\d+\.\d+\); .*`npm install-scripts approve node`, then run `npm install` again$/);
  });

  test(`with \`node@22\` installed in the app, the bin re-runs itself under it${NO_OLD_NODE}`, async (context) => {
    if (!oldNode) return context.skip();
    const bin = join(app, "node_modules", "agent-serve", "bin", "agent-serve.mjs");
    const result = spawnSync(oldNode, [bin, "version"], { cwd: app, encoding: "utf8", env: { PATH: "/usr/bin:/bin" } });
    expect(result.stderr).toBe("");
    expect(result.stdout.trim()).toBe(version);
  });
});

// --- helpers ---

async function writeProject(dir: string, imports: string): Promise<void> {
  await mkdir(join(dir, "bot"), { recursive: true });
  await writeFile(join(dir, "package.json"), JSON.stringify({ name: "agent", private: true, type: "module" }));
  await writeFile(join(dir, "bot", "instructions.md"), "Be brief.\n");
  await writeFile(
    join(dir, "bot", "agent.ts"),
    `${imports}export default defineAgent({ model: "scripted" });\nexport const tools = typeof defineTool;\n`,
  );
}

/**
 * The npm on PATH when it is 12 or newer, else `npm@latest` installed from the registry into a
 * temporary prefix; `missing` says why neither is at hand (the app is then installed with the npm
 * on PATH, and the tests of what npm 12 changes are skipped).
 */
async function newestNpm(): Promise<{ binDir?: string; prefix?: string; version: string; missing: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of Object.keys(env)) if (/^npm_/i.test(name)) delete env[name];
  const onPath = spawnSync("npm", ["--version"], { encoding: "utf8", env }).stdout?.trim() ?? "";
  if (Number(onPath.split(".")[0]) >= 12) return { version: onPath, missing: "" };
  const prefix = await mkdtemp(join(tmpdir(), "agent-serve-npm-"));
  try {
    await run("npm", ["install", "--prefix", prefix, "--no-audit", "--no-fund", "--loglevel=error", "npm@latest"], { env, encoding: "utf8", timeout: 120_000 });
    const { version: latest } = JSON.parse(await readFile(join(prefix, "node_modules", "npm", "package.json"), "utf8")) as { version: string };
    if (Number(latest.split(".")[0]) < 12) return { prefix, version: onPath, missing: `npm@latest is ${latest}, which runs install scripts unasked` };
    return { binDir: join(prefix, "node_modules", ".bin"), prefix, version: latest, missing: "" };
  } catch (error) {
    const reason = String((error as { stderr?: string }).stderr || error).trim().split("\n")[0];
    return { prefix, version: onPath, missing: `npm@latest could not be installed from the registry: ${reason}` };
  }
}

/** Package names from npm's list of dependencies whose install scripts it blocked. */
function blockedScripts(output: string): string[] {
  return [...output.matchAll(/^npm warn install-scripts\s+(\S+)@\S+ \((?:preinstall|install|postinstall|prepare):/gm)].map((match) => match[1]!);
}

function whichAll(name: string): string[] {
  const found = spawnSync("which", ["-a", name], { encoding: "utf8" }).stdout ?? "";
  return found.split("\n").filter((path) => path && !path.includes("node_modules"));
}
