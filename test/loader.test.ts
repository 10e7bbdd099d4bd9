import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { discoverProjects } from "../loader/discover.ts";
import { loadProject } from "../loader/load-project.ts";
import { slugProblem } from "../loader/slug.ts";
import type { Diagnostic } from "../src/base/definitions/project.ts";

// Temp dirs live outside the repository, so nothing above them provides node_modules: imports of
// agent-serve, valibot and the Agent SDK names resolve only through the loader's hooks.
const base = mkdtempSync(join(tmpdir(), "agent-serve-loader-"));
afterAll(() => rmSync(base, { recursive: true, force: true }));

let counter = 0;
function project(files: Record<string, string>, name = `p${++counter}`): string {
  const dir = join(base, `case-${counter}-${Math.random().toString(36).slice(2, 8)}`, name);
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, file)), { recursive: true });
    writeFileSync(join(dir, file), text);
  }
  return dir;
}

const PKG = JSON.stringify({ name: "pkg-name", description: "from package.json", type: "module" });
const INSTRUCTIONS = "Be brief.\n";

function codes(diagnostics: Diagnostic[]): string[] {
  return diagnostics.map((d) => d.code);
}

describe("loadProject", () => {
  test("reads package.json, agent.ts and instructions.md", async () => {
    const dir = project({
      "package.json": PKG,
      "bot/agent.ts": `import { defineAgent } from "agent-serve";\nexport default defineAgent({ instructions: "Inline too.", concurrency: { maxRunningTurns: 200 } });\n`,
      "bot/instructions.md": INSTRUCTIONS,
    });
    const loaded = await loadProject(dir);
    expect(loaded.diagnostics).toEqual([]);
    expect(loaded.name).toBe("pkg-name");
    expect(loaded.description).toBe("from package.json");
    expect(loaded.root).toBe(dir);
    expect(loaded.instructions).toBe("Be brief.\n\nInline too.");
    expect(loaded.agent.concurrency).toEqual({ maxRunningTurns: 200 });
  });

  test("config name wins over package name; directory name is the last fallback", async () => {
    const named = await loadProject(
      project({ "package.json": PKG, "bot/agent.ts": `export default { name: "Config Name" };\n`, "bot/instructions.md": INSTRUCTIONS }),
    );
    expect(named.name).toBe("Config Name");
    const bare = await loadProject(project({ "bot/instructions.md": INSTRUCTIONS }, "just-a-dir"));
    expect(bare.name).toBe("just-a-dir");
    expect(bare.agent).toEqual({});
    expect(bare.diagnostics).toEqual([]);
  });

  test("a missing instructions.md is an error diagnostic", async () => {
    const loaded = await loadProject(project({ "package.json": PKG, "bot/agent.ts": "export default {};\n" }));
    expect(loaded.diagnostics).toEqual([
      expect.objectContaining({ severity: "error", code: "missing_instructions", file: "bot/instructions.md" }),
    ]);
  });

  test("the legacy agent/ folder loads, with an info diagnostic", async () => {
    const loaded = await loadProject(
      project({ "package.json": PKG, "agent/agent.ts": `export default { name: "Legacy" };\n`, "agent/instructions.md": INSTRUCTIONS }),
    );
    expect(loaded.name).toBe("Legacy");
    expect(loaded.instructions).toBe("Be brief.");
    expect(loaded.diagnostics).toEqual([expect.objectContaining({ severity: "info", code: "legacy_agent_dir" })]);
  });

  test("Agent SDK module names alias to agent-serve", async () => {
    const dir = project({
      "package.json": PKG,
      "bot/agent.ts": [
        `import { defineAgent } from "@cursor/bdk";`,
        `import { defineAgent as grokDefine } from "@grok/agent-sdk";`,
        `import * as testing from "@cursor/bdk/testing";`,
        `import * as self from "agent-serve/testing";`,
        `export default defineAgent({ name: grokDefine === defineAgent && testing === self ? "same" : "different" });`,
      ].join("\n"),
      "bot/instructions.md": INSTRUCTIONS,
    });
    const loaded = await loadProject(dir);
    expect(loaded.diagnostics).toEqual([]);
    expect(loaded.name).toBe("same");
  });

  test("an unknown Agent SDK subpath is a diagnostic naming the subpath", async () => {
    const dir = project({
      "package.json": PKG,
      "bot/agent.ts": `import { x } from "@cursor/bdk/no-such-thing";\nexport default { name: String(x) };\n`,
      "bot/instructions.md": INSTRUCTIONS,
    });
    const loaded = await loadProject(dir);
    expect(codes(loaded.diagnostics)).toEqual(["agent_import_failed"]);
    expect(loaded.diagnostics[0]?.file).toBe("bot/agent.ts");
    expect(loaded.diagnostics[0]?.message).toContain("./no-such-thing");
    expect(loaded.diagnostics[0]?.message).toContain("@cursor/bdk/no-such-thing");
  });

  test("extensionless and .js-style relative imports find the .ts file", async () => {
    const dir = project({
      "package.json": PKG,
      "bot/agent.ts": [
        `import { a } from "./lib/a";`,
        `import { b } from "./lib/b.js";`,
        `import { c } from "./lib/c";`,
        `export default { name: a + b + c };`,
      ].join("\n"),
      "bot/lib/a.ts": `import { suffix } from "../shared";\nexport const a: string = "A" + suffix;\n`,
      "bot/shared.ts": `export const suffix = "!";\n`,
      "bot/lib/b.ts": `export const b: string = "B";\n`,
      "bot/lib/c/index.ts": `export const c: string = "C";\n`,
      "bot/instructions.md": INSTRUCTIONS,
    });
    const loaded = await loadProject(dir);
    expect(loaded.diagnostics).toEqual([]);
    expect(loaded.name).toBe("A!BC");
  });

  test("host dependencies resolve from agent-serve when the project lacks them", async () => {
    const dir = project({
      "package.json": PKG,
      "bot/agent.ts": `import * as v from "valibot";\nexport default { name: v.parse(v.string(), "valibot-ok") };\n`,
      "bot/instructions.md": INSTRUCTIONS,
    });
    const loaded = await loadProject(dir);
    expect(loaded.diagnostics).toEqual([]);
    expect(loaded.name).toBe("valibot-ok");
  });

  test("a broken agent.ts becomes a diagnostic, not a crash", async () => {
    const syntax = await loadProject(
      project({ "package.json": PKG, "bot/agent.ts": "export default {{ broken\n", "bot/instructions.md": INSTRUCTIONS }),
    );
    expect(syntax.diagnostics).toEqual([
      expect.objectContaining({ severity: "error", code: "agent_import_failed", file: "bot/agent.ts" }),
    ]);
    const throwing = await loadProject(
      project({ "package.json": PKG, "bot/agent.ts": `throw new Error("boom at load");\n`, "bot/instructions.md": INSTRUCTIONS }),
    );
    expect(throwing.diagnostics[0]?.message).toContain("boom at load");
    const missing = await loadProject(
      project({ "package.json": PKG, "bot/agent.ts": `import "./nope";\nexport default {};\n`, "bot/instructions.md": INSTRUCTIONS }),
    );
    expect(codes(missing.diagnostics)).toEqual(["agent_import_failed"]);
    const notObject = await loadProject(
      project({ "package.json": PKG, "bot/agent.ts": `export default 42;\n`, "bot/instructions.md": INSTRUCTIONS }),
    );
    expect(codes(notObject.diagnostics)).toEqual(["invalid_agent_config"]);
  });

  test.each([0, 201, 1.5, -3, "4"])("maxRunningTurns %j is an error diagnostic", async (value) => {
    const loaded = await loadProject(
      project({
        "package.json": PKG,
        "bot/agent.ts": `export default { concurrency: { maxRunningTurns: ${JSON.stringify(value)} } };\n`,
        "bot/instructions.md": INSTRUCTIONS,
      }),
    );
    expect(loaded.diagnostics).toEqual([
      expect.objectContaining({ severity: "error", code: "invalid_agent_config", file: "bot/agent.ts" }),
    ]);
    expect(loaded.diagnostics[0]?.message).toContain("maxRunningTurns");
  });

  test("an unknown model id is a warning; a bare id that maps is fine; a suffix-style id is an error", async () => {
    const loaded = await loadProject(
      project({ "package.json": PKG, "bot/agent.ts": `export default { model: "composer-1" };\n`, "bot/instructions.md": INSTRUCTIONS }),
    );
    expect(loaded.diagnostics).toEqual([expect.objectContaining({ severity: "warning", code: "unknown_model" })]);
    const mapped = await loadProject(
      project({ "package.json": PKG, "bot/agent.ts": `export default { model: "gpt-4o" };\n`, "bot/instructions.md": INSTRUCTIONS }),
    );
    expect(mapped.diagnostics).toEqual([]);
    const suffix = await loadProject(
      project({ "package.json": PKG, "bot/agent.ts": `export default { model: "claude-sonnet-4-5-high" };\n`, "bot/instructions.md": INSTRUCTIONS }),
    );
    expect(codes(suffix.diagnostics)).toEqual(["invalid_model"]);
    const ok = await loadProject(
      project({ "package.json": PKG, "bot/agent.ts": `export default { model: "scripted" };\n`, "bot/instructions.md": INSTRUCTIONS }),
    );
    expect(ok.diagnostics).toEqual([]);
  });

  test("top-level await in agent.ts loads through import() under plain Node", () => {
    const dir = project({
      "package.json": PKG,
      "bot/agent.ts": `import { defineAgent } from "agent-serve";\nconst name = await Promise.resolve("awaited");\nexport default defineAgent({ name });\n`,
      "bot/instructions.md": INSTRUCTIONS,
    });
    // vitest rewrites import() in code it transforms, so this path is checked in a plain Node child.
    const script = `import { loadProject } from ${JSON.stringify(new URL("../loader/load-project.ts", import.meta.url).href)};
const p = await loadProject(${JSON.stringify(dir)});
console.log(JSON.stringify({ name: p.name, diagnostics: p.diagnostics }));`;
    const child = spawnSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8", timeout: 20_000 });
    expect(child.stderr).toBe("");
    expect(JSON.parse(child.stdout)).toEqual({ name: "awaited", diagnostics: [] });
  });
});

describe("discoverProjects", () => {
  const child = (name: string) => ({
    [`${name}/package.json`]: JSON.stringify({ name, type: "module" }),
    [`${name}/bot/agent.ts`]: "export default {};\n",
    [`${name}/bot/instructions.md`]: INSTRUCTIONS,
  });

  test("a project directory mounts under its own name", async () => {
    const dir = project({ "package.json": PKG, "bot/instructions.md": INSTRUCTIONS }, "solo");
    const found = await discoverProjects(dir);
    expect(found.diagnostics).toEqual([]);
    expect(found.projects.map((p) => [p.slug, p.dir])).toEqual([["solo", dir]]);
  });

  test("a directory of projects mounts each child; other folders are skipped", async () => {
    const dir = project({
      ...child("beta"),
      ...child("alpha"),
      "notes/readme.md": "not a project\n",
      ".hidden/bot/instructions.md": INSTRUCTIONS,
    });
    const found = await discoverProjects(dir);
    expect(found.diagnostics).toEqual([]);
    expect(found.projects.map((p) => p.slug)).toEqual(["alpha", "beta"]);
    expect(found.projects.map((p) => p.project.name)).toEqual(["alpha", "beta"]);
  });

  test("invalid and reserved slugs are error diagnostics naming the slug", async () => {
    const dir = project({ ...child("docs"), ...child("_under"), ...child("ok-1") });
    const found = await discoverProjects(dir);
    const bySlug = Object.fromEntries(found.projects.map((p) => [p.slug, p.project.diagnostics]));
    expect(bySlug["ok-1"]).toEqual([]);
    expect(bySlug.docs).toEqual([expect.objectContaining({ severity: "error", code: "invalid_slug" })]);
    expect(bySlug.docs?.[0]?.message).toContain('"docs"');
    expect(bySlug._under?.[0]?.message).toContain('"_under"');
  });

  test("single mode serves one project; several are an error", async () => {
    const one = project({ ...child("v1") });
    const single = await discoverProjects(one, { mode: "single" });
    // Slugs do not matter in single mode: nothing is mounted under them.
    expect(single.diagnostics).toEqual([]);
    expect(single.projects[0]?.project.diagnostics).toEqual([]);
    const two = await discoverProjects(project({ ...child("a"), ...child("b") }), { mode: "single" });
    expect(codes(two.diagnostics)).toEqual(["single_mode_multiple_projects"]);
  });

  test("no project found is an error", async () => {
    const empty = project({ "readme.md": "nothing\n" });
    expect(codes((await discoverProjects(empty)).diagnostics)).toEqual(["no_project"]);
    const absent = await discoverProjects(join(base, "does-not-exist"));
    expect(absent.diagnostics[0]?.message).toContain("does not exist");
  });
});

test("slug rule", () => {
  for (const ok of ["a", "7", "hello", "my_agent-2", "A1"]) expect(slugProblem(ok)).toBeUndefined();
  for (const bad of ["", "-a", "_a", "a.b", "a b", "é", "a/b", "v1", "playground", "docs"]) {
    expect(slugProblem(bad)).toContain(`"${bad}"`);
  }
});
