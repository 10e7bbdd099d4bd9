/**
 * `agent-serve build --target cloudflare`: the generated entry statically imports every
 * definition and embeds the text files, the bundle imports nothing from `node:*`, the
 * `wrangler.jsonc` has the Durable Objects, migrations and the schedules' cron triggers, and the
 * bundle starts in workerd (Miniflare) and serves the project loaded from its snapshot. Sessions,
 * approvals, schedules and restarts of the built worker are in cloudflare-e2e.test.ts.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Miniflare } from "miniflare";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { buildCloudflare, buildCommand } from "../cli/build.ts";
import type { BuildResult } from "../cli/build.ts";
import { workerName } from "../cli/cloudflare/wrangler-config.ts";
import { main } from "../cli/main.ts";
import { miniflareOptions, readWranglerConfig } from "./_cloudflare.ts";
import { tempProjects } from "./_temp-projects.ts";

const repo = fileURLToPath(new URL("../", import.meta.url));
const FIXTURE = join(repo, "test/fixtures/cloudflare-project");
const scratch = mkdtempSync(join(tmpdir(), "agent-serve-cfbuild-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
const project = tempProjects("cfbuild");
const BEARER = "cf-build-token";

function capture(): { io: Parameters<typeof main>[0] & { argv: string[] }; out: () => string; err: () => string } {
  let out = "";
  let err = "";
  return {
    io: { argv: [], stdout: { write: (s: string) => (out += s) }, stderr: { write: (s: string) => (err += s) }, env: { ...process.env, NO_COLOR: "1" }, cwd: repo },
    out: () => out,
    err: () => err,
  };
}

describe("build --target cloudflare", () => {
  let built: BuildResult;
  let mf: Miniflare;
  const outDir = join(scratch, "fixture");

  beforeAll(async () => {
    const { io } = capture();
    built = await buildCloudflare({ target: "cloudflare", dir: FIXTURE, out: outDir, docs: false }, io);
    mf = new Miniflare({ ...miniflareOptions(outDir), bindings: { AGENT_SERVE_BEARER_TOKEN: BEARER } });
    await mf.ready;
  });
  afterAll(() => mf?.dispose());

  test("the entry imports every definition module and embeds the text files it read", () => {
    const entry = readFileSync(built.files.entry, "utf8");
    for (const file of ["bot/agent.ts", "bot/tools/add.ts", "bot/tools/forget.ts", "bot/schedules/weekdays.ts"]) {
      expect(entry).toMatch(new RegExp(`^import \\* as p0m\\d+ from "[./]+.*/cloudflare-project/${file}";$`, "m"));
    }
    expect(entry).toContain(`import { createCloudflareWorker } from "agent-serve/cloudflare";`);
    expect(entry).toContain(JSON.stringify("You keep short notes and answer briefly.\n"));
    expect(entry).toContain(JSON.stringify("---\ncron: \"0 3 * * *\"\n---\n/reply nightly digest written\n"));
    expect(entry).toMatch(/createCloudflareWorker\(\{ mode: "multi", projects, docs, playground \}\)/);
    expect(entry).toMatch(/^export default app\.worker;$/m);
    expect(entry).toMatch(/^export const AgentSession = app\.AgentSession;$/m);
    expect(entry).toMatch(/^export const AgentCoordinator = app\.AgentCoordinator;$/m);
  });

  test("the bundle imports nothing from node:* (esbuild's metafile) and starts in workerd", async () => {
    expect(built.config.compatibility_flags).toEqual(["enable_request_signal"]);
    expect(built.diagnostics.map((d) => d.diagnostic.code)).not.toContain("workers_node_imports");
    const bundle = readFileSync(built.files.worker, "utf8");
    expect(bundle).not.toMatch(/\bfrom\s*["']node:/);
    expect(bundle).not.toMatch(/\bimport\s*\(?\s*["']node:/);
    const res = await mf.dispatchFetch("http://localhost/cloudflare-project/v1/info", { headers: { authorization: `Bearer ${BEARER}` } });
    expect(res.status).toBe(200);
    const info = (await res.json()) as { name: string; tools: Array<{ name: string }> };
    expect(info.name).toBe("cf-notes");
    expect(info.tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(["add", "forget"]));
  });

  test("a server tool from the snapshot runs inside workerd, with the host's valibot", async () => {
    const res = await mf.dispatchFetch("http://localhost/cloudflare-project/v1/tools/add", {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${BEARER}` },
      body: JSON.stringify({ input: { a: 2, b: 40 } }),
    });
    expect(await res.json()).toMatchObject({ ok: true, result: { sum: 42 } });
    const bad = await mf.dispatchFetch("http://localhost/cloudflare-project/v1/tools/add", {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${BEARER}` },
      body: JSON.stringify({ input: { a: "two" } }),
    });
    expect(bad.status).toBe(400);
  });

  test("wrangler.jsonc: bundle as main, Durable Objects with a SQLite migration, the schedules' crons", () => {
    const config = readWranglerConfig(outDir);
    expect(config).toEqual({
      name: "cf-notes",
      main: "worker.mjs",
      compatibility_date: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/),
      compatibility_flags: ["enable_request_signal"],
      no_bundle: true,
      durable_objects: {
        bindings: [
          { name: "AGENT_SESSION", class_name: "AgentSession" },
          { name: "AGENT_COORDINATOR", class_name: "AgentCoordinator" },
        ],
      },
      migrations: [{ tag: "v1", new_sqlite_classes: ["AgentSession", "AgentCoordinator"] }],
      triggers: { crons: ["0 3 * * *", "30 8 * * MON-FRI"] },
    });
  });
});

describe("build refusals and warnings", () => {
  test("a project with an error diagnostic is not built, and nothing is written", async () => {
    const dir = project({ "bot/tools/broken.ts": "export default 42;\n" });
    const out = join(scratch, "broken");
    const { io, err } = capture();
    const code = await main({ ...io, argv: ["build", dir, "--target", "cloudflare", "--out", out] });
    expect(code).toBe(1);
    expect(err()).toMatch(/not building: 1 error/);
    expect(err()).toMatch(/error \[invalid_tool\] p\d+: bot\/tools\/broken\.ts:/);
    expect(() => readFileSync(join(out, "wrangler.jsonc"))).toThrow();
  });

  test("what needs the local harness is warned about; --json reports it with the files", async () => {
    const dir = project({
      "bot/agent.ts": `import { defineAgent } from "agent-serve";\nexport default defineAgent({ tools: ["shell", "read"], hosting: { secretNames: ["GITHUB_TOKEN", "OPENAI_API_KEY"] } });\n`,
      "bot/tools/script.ts": `import { defineTool } from "agent-serve/tools";\nexport default defineTool({ description: "Runs a script", execution: "agent", script: "echo hi" });\n`,
      "bot/skills/notes.md": "---\ndescription: Notes\n---\nTake notes.\n",
      "bot/schedules/odd.md": `---\ncron: "0 9 1 * 1"\n---\nBoth days.\n`,
    });
    const out = join(scratch, "harness");
    const { io, out: stdout } = capture();
    const code = await buildCommand({ target: "cloudflare", dir, out, docs: false, playground: false, json: true }, io);
    expect(code).toBe(0);
    const result = JSON.parse(stdout()) as BuildResult;
    expect(result).toMatchObject({ ok: true, outDir: out, files: { worker: join(out, "worker.mjs"), config: join(out, "wrangler.jsonc"), entry: join(out, "entry.mjs") } });
    expect(result.secretNames).toEqual(["GITHUB_TOKEN", "OPENAI_API_KEY"]);
    const codes = result.diagnostics.map((d) => d.diagnostic.code);
    expect(codes).toEqual(expect.arrayContaining(["workers_agent_tools", "workers_harness_tools", "workers_skills", "cron_every_minute"]));
    // A day of the month together with a day of the week: Workers may read that differently, so
    // one per-minute trigger wakes the worker and the host decides.
    expect(readWranglerConfig(out).triggers.crons).toEqual(["* * * * *"]);
  });

  test("a folder of projects builds into one worker serving each under its slug; --mode single refuses it", async () => {
    const parent = mkdtempSync(join(scratch, "folder-"));
    for (const name of ["alpha", "beta"]) {
      mkdirSync(join(parent, name, "bot"), { recursive: true });
      writeFileSync(join(parent, name, "bot", "instructions.md"), `You are ${name}.\n`);
    }
    const out = join(scratch, "folder-out");
    const { io, out: stdout } = capture();
    expect(await main({ ...io, argv: ["build", parent, "--target", "cloudflare", "--out", out, "--no-docs", "--no-playground", "--json"] })).toBe(0);
    const result = JSON.parse(stdout()) as BuildResult;
    expect(result.projects.map((p) => p.slug)).toEqual(["alpha", "beta"]);
    expect(result.config.name).toBe(workerName(basename(parent)));
    const entry = readFileSync(result.files.entry, "utf8");
    expect(entry).toContain(`{ slug: "alpha", project: await loadProjectSnapshot({`);
    expect(entry).toContain(JSON.stringify("You are beta.\n"));
    const single = capture();
    expect(await main({ ...single.io, argv: ["build", parent, "--target", "cloudflare", "--out", join(scratch, "single-out"), "--mode", "single"] })).toBe(1);
    expect(single.err()).toMatch(/single_mode_multiple_projects/);
  });

  test("--target is required and only cloudflare is known", async () => {
    const { io, err } = capture();
    expect(await main({ ...io, argv: ["build", FIXTURE] })).toBe(2);
    expect(err()).toMatch(/--target is required/);
    expect(await main({ ...io, argv: ["build", FIXTURE, "--target", "vercel"] })).toBe(2);
    expect(err()).toMatch(/unknown --target "vercel"/);
  });
});
