/**
 * A project loaded from a snapshot (what a Cloudflare build embeds: text files plus the bundled
 * module namespaces) equals the same project loaded from disk: definitions, diagnostics,
 * instructions, skills, schedules; functions are the same module exports, not copies.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, test } from "vitest";
import { importProjectModule } from "../loader/import-module.ts";
import { loadProject } from "../loader/load-project.ts";
import { loadProjectSnapshot } from "../loader/load-snapshot.ts";
import { recordProject } from "../loader/record-project.ts";
import type { ProjectSnapshot } from "../loader/project-source.ts";
import type { ProjectDefinition } from "../src/base/definitions/project.ts";
import { tempProjects } from "./_temp-projects.ts";

const repo = fileURLToPath(new URL("../", import.meta.url));
const project = tempProjects("snapshot");

/** Every loader form at once, with problems that become diagnostics. */
const EVERYTHING: Record<string, string> = {
  "package.json": JSON.stringify({ name: "everything", description: "All the forms", type: "module" }),
  "bot/agent.ts": `import { defineAgent } from "agent-serve";\nexport default defineAgent({ model: "scripted", instructions: "Inline too.", colour: "blue" });\n`,
  "bot/instructions.md": "You do everything.\n",
  "bot/NOTES.txt": "not loaded\n",
  "bot/misc/x.txt": "not loaded either\n",
  "bot/lib/util.ts": `export const twice = (n: number): number => n * 2;\n`,
  "bot/tools/double.ts": `import { defineTool } from "agent-serve/tools";\nimport { twice } from "../lib/util";\nexport default defineTool({ description: "Doubles", inputSchema: { type: "object", properties: { n: { type: "number" } } }, execute: ({ n }: { n: number }) => twice(n) });\n`,
  "bot/tools/_helper.ts": `export const nothing = 1;\n`,
  "bot/tools/broken.ts": `export default 42;\n`,
  "bot/hooks/audit/log.ts": `import { defineHook } from "agent-serve/hooks";\nexport default defineHook({ events: { "turn.completed"() {} } });\n`,
  "bot/schedules/daily.md": `---\ncron: "0 9 * * 1-5"\n---\nSay good morning.\n`,
  "bot/schedules/sweep.ts": `import { defineSchedule } from "agent-serve/schedules";\nexport default defineSchedule({ cron: "*/15 * * * *", async run() {} });\n`,
  "bot/schedules/bad.md": `---\ncron: "not a cron"\n---\nNever.\n`,
  "bot/skills/quick.md": "---\ndescription: Quick notes skill\n---\n# Quick\n\nDo it fast.\n",
  "bot/skills/module.ts": `import { defineSkill } from "agent-serve/skills";\nexport default defineSkill({ description: "Module skill", markdown: "Module body", files: { "references/x.md": "x file" } });\n`,
  "bot/subagents/helper/agent.ts": `import { defineAgent } from "agent-serve";\nexport default defineAgent({ description: "Helps out" });\n`,
  "bot/subagents/helper/instructions.md": "Help briefly.\n",
  "bot/subagents/helper/tools/ignored.ts": "export default {};\n",
  "bot/mcp-connections/docs.ts": `import { defineConnection } from "agent-serve/connections";\nexport default defineConnection({ url: "https://example.com/mcp", description: "Docs" });\n`,
  "evals/evals.config.ts": `import { defineEvalConfig } from "agent-serve/evals";\nexport default defineEvalConfig({ maxConcurrency: 2 });\n`,
  "evals/hi.eval.ts": `import { defineEval } from "agent-serve/evals";\nexport default defineEval({ description: "hi", async test(t) { await t.send("hi"); } });\n`,
};

/** The snapshot a build would embed for `dir`, with the module namespaces the bundle would import. */
async function snapshotOf(dir: string): Promise<{ fromRecording: ProjectDefinition; snapshot: ProjectSnapshot }> {
  const { project: fromRecording, recorded } = await recordProject(dir);
  const modules: ProjectSnapshot["modules"] = {};
  for (const path of recorded.modules) modules[path] = await importProjectModule(join(recorded.root, path));
  return { fromRecording, snapshot: { dirName: recorded.dirName, root: recorded.root, files: recorded.files, modules, listed: recorded.listed } };
}

async function expectSameLoad(dir: string): Promise<{ disk: ProjectDefinition; snap: ProjectDefinition; snapshot: ProjectSnapshot }> {
  const disk = await loadProject(dir);
  const { fromRecording, snapshot } = await snapshotOf(dir);
  const snap = await loadProjectSnapshot(snapshot);
  expect(differences(fromRecording, disk)).toEqual([]);
  expect(differences(snap, disk)).toEqual([]);
  // Not copies: the very objects the modules export.
  for (const key of ["tools", "hooks", "channels", "evals"] as const) {
    for (const [name, definition] of Object.entries(disk[key] ?? {})) {
      if (!name.includes("__")) expect(snap[key]?.[name], `${key}.${name}`).toBe(definition);
    }
  }
  for (const [name, schedule] of Object.entries(disk.schedules ?? {})) if (schedule.run) expect(snap.schedules?.[name]?.run).toBe(schedule.run);
  return { disk, snap, snapshot };
}

/**
 * Where two loads differ. Functions must be the same function, except those an extension's
 * `setup` creates on each load (mounted as `<ns>__<name>`): those must have the same source.
 */
function differences(a: unknown, b: unknown, path = "project"): string[] {
  if (typeof a === "function" && typeof b === "function") {
    if (a === b || (path.includes("__") && String(a) === String(b))) return [];
    return [`${path}: different functions`];
  }
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return Object.is(a, b) ? [] : [`${path}: ${String(a)} vs ${String(b)}`];
  if (Array.isArray(a) !== Array.isArray(b)) return [`${path}: array vs object`];
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  const records = [a as Record<string, unknown>, b as Record<string, unknown>] as const;
  return [...keys].flatMap((key) => differences(records[0][key], records[1][key], `${path}.${key}`));
}

describe("loadProjectSnapshot", () => {
  test.each([["examples/hello"], ["examples/a2a/writer"], ["test/fixtures/agent-sdk-project"]])("%s loads the same from a snapshot as from disk", async (relative) => {
    const { disk, snapshot } = await expectSameLoad(join(repo, relative));
    expect(disk.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
    expect(Object.keys(snapshot.files)).toContain("bot/instructions.md");
    expect(Object.keys(snapshot.modules).length).toBeGreaterThan(0);
  });

  test("every loader form, problems included, loads the same; functions are the module's own", async () => {
    const dir = project(EVERYTHING);
    const { disk, snap, snapshot } = await expectSameLoad(dir);
    const codes = disk.diagnostics.map((d) => d.code);
    // The load really met each kind of problem, so the diagnostics compared above are not empty.
    expect(codes).toEqual(expect.arrayContaining(["unknown_file", "unknown_folder", "invalid_tool", "invalid_schedule_cron", "subagent_capability_ignored"]));
    expect(Object.keys(snap.tools ?? {})).toEqual(["double"]);
    expect(Object.keys(snap.schedules ?? {}).sort()).toEqual(["daily", "sweep"]);
    expect(snap.schedules?.daily).toMatchObject({ cron: "0 9 * * 1-5", markdown: "Say good morning." });
    expect(snap.instructions).toBe("You do everything.\n\nInline too.");
    expect(Object.keys(snap.skills ?? {}).sort()).toEqual(["module", "quick"]);
    expect(snap.subagents?.helper?.instructions).toBe("Help briefly.");
    expect(snap.evals?.hi).toBeDefined();
    expect(snap.name).toBe("everything");
    // The helper files the loader skips are neither embedded nor imported.
    expect(Object.keys(snapshot.modules)).not.toContain("bot/tools/_helper.ts");
    expect(Object.keys(snapshot.files)).not.toContain("bot/NOTES.txt");
    expect(snapshot.listed).toEqual(expect.arrayContaining(["bot/NOTES.txt", "bot/misc/", "bot/tools/_helper.ts"]));
    // The tool's execute is the exported function itself (it imports its helper at bundle time).
    expect(await snap.tools?.double?.execute?.({ n: 21 } as never, {} as never)).toBe(42);
  });

  test("an empty definition folder and a missing instructions.md load the same", async () => {
    const dir = project({ "bot/agent.ts": `export default {};\n` });
    mkdirSync(join(dir, "bot", "tools"));
    const { rmSync } = await import("node:fs");
    rmSync(join(dir, "bot", "instructions.md"));
    const { disk, snap } = await expectSameLoad(dir);
    expect(disk.tools).toEqual({});
    expect(snap.diagnostics.map((d) => d.code)).toContain("missing_instructions");
  });

  test("a folder skill reaches the snapshot as text files; on disk it is the folder", async () => {
    const dir = project({
      "bot/skills/folder/SKILL.md": "---\ndescription: Folder skill\n---\nSee references/ref.md\n",
      "bot/skills/folder/references/ref.md": "reference text\n",
      "bot/sandbox/workspace/seed.txt": "seed\n",
    });
    const disk = await loadProject(dir);
    const { snapshot } = await snapshotOf(dir);
    const snap = await loadProjectSnapshot(snapshot);
    expect(disk.skills?.folder).toMatchObject({ description: "Folder skill", dir: join(dir, "bot/skills/folder"), source: "bot/skills/folder/" });
    expect(snap.skills?.folder).toEqual({
      description: "Folder skill",
      markdown: "---\ndescription: Folder skill\n---\nSee references/ref.md\n",
      files: { "references/ref.md": "reference text\n" },
      source: "bot/skills/folder/",
    });
    // Workspace seeds belong to local workspaces: recorded as present, never embedded.
    expect(disk.workspaceSeed).toEqual({ dir: join(dir, "bot/sandbox/workspace"), files: 1 });
    expect(snap.workspaceSeed).toBeUndefined();
    expect(Object.keys(snapshot.files)).not.toContain("bot/sandbox/workspace/seed.txt");
    expect(snap.diagnostics).toEqual(disk.diagnostics);
    // The comparison the other tests rely on does see a difference when there is one.
    expect(differences(snap, disk)).toEqual(expect.arrayContaining([expect.stringMatching(/^project\.skills\.folder\./), expect.stringMatching(/^project\.workspaceSeed/)]));
  });

  test("a snapshot without root falls back to its folder name and imports nothing it was not given", async () => {
    const snap = await loadProjectSnapshot({ dirName: "bare", files: { "bot/instructions.md": "Hi." }, modules: {}, listed: ["bot/tools/x.ts"] });
    expect(snap.name).toBe("bare");
    expect(snap.root).toBeUndefined();
    expect(snap.instructions).toBe("Hi.");
    expect(snap.diagnostics).toContainEqual(expect.objectContaining({ code: "tool_import_failed", file: "bot/tools/x.ts" }));
  });
});
