/**
 * Session workspace preparation on the local runtime (docs/design/local-runtime.md "Preparation"):
 * AGENTS.md, skills in their three forms, agent-tool scripts with their catalog, seed files,
 * per-send workspace files, and where the workspace lives (local.cwd, local.workspaceDir, per
 * send).
 */
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadProject } from "../loader/load-project.ts";
import { createLocalRuntime } from "../loader/runtime.ts";
import { createWorkspacePreparer } from "../loader/workspace/prepare.ts";
import { planWorkspace } from "../src/engine/harness/workspace-plan.ts";
import { createHost } from "../src/host/host.ts";
import type { ProjectDefinition } from "../src/base/definitions/project.ts";
import { createMemoryStorage } from "../src/base/storage/memory.ts";
import { allEvents, eventually, type HostUnderTest, postJson, project, quietLogger } from "./_harness.ts";
import { results, settled, toolLine, turn, writeProject } from "./_workspace.ts";

const base = "/prep";
const cleanup: string[] = [];
afterAll(() => {
  for (const dir of cleanup) rmSync(dir, { recursive: true, force: true });
});

const FILES: Record<string, string> = {
  "package.json": JSON.stringify({ name: "prep-agent", type: "module" }),
  "bot/agent.ts": `import { defineAgent } from "agent-serve";\nexport default defineAgent({ model: "scripted" });\n`,
  "bot/instructions.md": "You prepare workspaces.\n",
  "bot/skills/quick.md": "---\ndescription: Quick notes skill\n---\n# Quick\n\nDo it fast.\n",
  "bot/skills/firstline.md": "# Use for release notes\n\nBody of the release skill.\n",
  "bot/skills/folder/SKILL.md": "---\nname: folder\ndescription: Folder skill\n---\nSee references/ref.md\n",
  "bot/skills/folder/references/ref.md": "reference text\n",
  "bot/skills/module.ts": `import { defineSkill } from "agent-serve/skills";\nexport default defineSkill({ description: "Module skill", markdown: "Module body", files: { "references/x.md": "x file" } });\n`,
  "bot/tools/stamp.ts": `import { defineTool } from "agent-serve/tools";\nexport default defineTool({ description: "Writes its input to stamp.json", execution: "agent", script: "cat > stamp.json; echo '\\"stamped\\"'" });\n`,
  "bot/tools/where.ts": `import { defineTool } from "agent-serve/tools";\nexport default defineTool({ description: "Reports the workspace", execute: (_input, ctx) => ({ workspaceDir: ctx.workspaceDir }) });\n`,
  "bot/sandbox/workspace/seed.txt": "seed v1\n",
  "bot/sandbox/workspace/nested/deep.txt": "deep\n",
};

async function start(local: ProjectDefinition["agent"]["local"] = undefined): Promise<{ target: HostUnderTest; stateRoot: string; root: string; close: () => Promise<void> }> {
  const root = writeProject(FILES);
  const stateRoot = mkdtempSync(join(tmpdir(), "agent-serve-prep-state-"));
  cleanup.push(root, stateRoot);
  const loaded = await loadProject(root);
  expect(loaded.diagnostics).toEqual([]);
  const host = createHost({
    agents: [{ slug: "prep", project: { ...loaded, agent: { ...loaded.agent, ...(local ? { local } : {}) } }, storage: createMemoryStorage(), runtime: createLocalRuntime({ stateRoot }) }],
    logger: quietLogger,
    drainTimeoutMs: 50,
    dev: true,
  });
  return { target: { kind: "in-process", host, fetch: (path, init = {}) => host.request(path, init, { ip: "127.0.0.1" }) }, stateRoot, root, close: () => host.close() };
}

describe("workspace preparation", () => {
  it("writes AGENTS.md, the three skill forms, agent-tool scripts, seeds and per-send files before the first turn", async () => {
    const { target, stateRoot, close } = await start();
    try {
      const script = [toolLine("shell", { command: `echo '{"a":1}' | .agent-serve/tools/stamp` }), toolLine("read", { path: "inbox/task.md" }), "/reply ok"].join("\n");
      const { sessionId, events } = await turn(target, base, script, { workspaceFiles: { "inbox/task.md": "do this", "top.txt": "top" } });
      const out = results(events);
      expect(out[0]).toMatchObject({ isError: false, output: { exitCode: 0, stdout: '"stamped"\n' } });
      expect(out[1]).toMatchObject({ isError: false, output: "do this\n" });

      const dir = join(stateRoot, "workspaces", sessionId);
      const agents = readFileSync(join(dir, "AGENTS.md"), "utf8");
      expect(agents).toMatch(/^<!-- agent-serve:begin/);
      expect(agents).toContain("# prep-agent\n\nYou prepare workspaces.");
      expect(agents).toContain("- `firstline`: Use for release notes");
      expect(agents).toContain("- `folder`: Folder skill");
      expect(agents).toContain("- `module`: Module skill");
      expect(agents).toContain("- `quick`: Quick notes skill");
      expect(agents).toContain("## Agent tools");
      expect(agents).toContain("- `stamp`: Writes its input to stamp.json");
      expect(agents).not.toContain("`where`");

      expect(readFileSync(join(dir, ".cursor/skills/quick/SKILL.md"), "utf8")).toBe('---\nname: quick\ndescription: "Quick notes skill"\n---\n\n# Quick\n\nDo it fast.\n');
      expect(readFileSync(join(dir, ".cursor/skills/firstline/SKILL.md"), "utf8")).toContain('description: "Use for release notes"');
      expect(readFileSync(join(dir, ".cursor/skills/folder/SKILL.md"), "utf8")).toBe(FILES["bot/skills/folder/SKILL.md"]);
      expect(readFileSync(join(dir, ".cursor/skills/folder/references/ref.md"), "utf8")).toBe("reference text\n");
      expect(readFileSync(join(dir, ".cursor/skills/module/SKILL.md"), "utf8")).toContain("Module body");
      expect(readFileSync(join(dir, ".cursor/skills/module/references/x.md"), "utf8")).toBe("x file");

      const script_ = join(dir, ".agent-serve/tools/stamp");
      expect(statSync(script_).mode & 0o111).not.toBe(0);
      expect(readFileSync(script_, "utf8")).toContain("cat > stamp.json");
      expect(readFileSync(join(dir, "stamp.json"), "utf8").trim()).toBe('{"a":1}');

      expect(readFileSync(join(dir, "seed.txt"), "utf8")).toBe("seed v1\n");
      expect(readFileSync(join(dir, "nested/deep.txt"), "utf8")).toBe("deep\n");
      expect(readFileSync(join(dir, "top.txt"), "utf8")).toBe("top");
    } finally {
      await close();
    }
  });

  it("later turns keep the agent's changes to seed files and write each send's files", async () => {
    const { target, stateRoot, close } = await start();
    try {
      const first = await turn(target, base, [toolLine("edit", { path: "seed.txt", newText: "changed by the agent\n" }), "/reply ok"].join("\n"));
      const response = await target.fetch(
        `${base}/v1/session/${first.sessionId}`,
        postJson({ continuationToken: first.continuationToken, message: [toolLine("read", { path: "seed.txt" }), toolLine("read", { path: "inbox/second.md" }), "/reply ok"].join("\n"), workspaceFiles: { "inbox/second.md": "second send" } }),
      );
      expect(response.status).toBe(200);
      const events = await settled(target, base, first.sessionId, 1);
      const out = results(events).slice(-2);
      expect(out[0]).toMatchObject({ isError: false, output: "changed by the agent\n" });
      expect(out[1]).toMatchObject({ isError: false, output: "second send\n" });
      expect(readFileSync(join(stateRoot, "workspaces", first.sessionId, "seed.txt"), "utf8")).toBe("changed by the agent\n");
    } finally {
      await close();
    }
  });

  it("refuses per-send file paths that leave the workspace with 400", async () => {
    const { target, close } = await start();
    try {
      for (const path of ["../x", "/etc/x", "a/../../x", "a//b", "C:/x"]) {
        const response = await target.fetch(`${base}/v1/session`, postJson({ message: "hi", workspaceFiles: { [path]: "x" } }));
        expect(response.status, path).toBe(400);
        expect(((await response.json()) as { error: string }).error).toBe("invalid_request");
      }
    } finally {
      await close();
    }
  });

  it("local.cwd gives each session <cwd>/<sessionId>; server tools and direct calls see the same workspace", async () => {
    const { target, root, close } = await start({ cwd: "work" });
    try {
      const { sessionId, events } = await turn(target, base, [toolLine("where", {}), "/reply ok"].join("\n"));
      const dir = join(root, "work", sessionId);
      expect(results(events)[0]).toMatchObject({ output: { workspaceDir: dir } });
      expect(existsSync(join(dir, "AGENTS.md"))).toBe(true);
      const direct = await target.fetch(`${base}/v1/tools/where`, postJson({ input: {}, sessionId }));
      expect(((await direct.json()) as { result: unknown }).result).toEqual({ workspaceDir: dir });
    } finally {
      await close();
    }
  });

  it("local.workspaceDir is shared and wins over cwd; it keeps the user's AGENTS.md text and files; a per-send workspaceDir wins over both", async () => {
    const shared = mkdtempSync(join(tmpdir(), "agent-serve-shared-"));
    const perSend = mkdtempSync(join(tmpdir(), "agent-serve-persend-"));
    cleanup.push(shared, perSend);
    writeFileSync(join(shared, "AGENTS.md"), "# Team notes\n\nKeep me.\n");
    writeFileSync(join(shared, "seed.txt"), "the user's own file\n");
    const { target, root, close } = await start({ cwd: "ignored", workspaceDir: shared });
    try {
      const a = await turn(target, base, [toolLine("where", {}), "/reply ok"].join("\n"));
      const b = await turn(target, base, [toolLine("where", {}), "/reply ok"].join("\n"));
      expect(results(a.events)[0]).toMatchObject({ output: { workspaceDir: shared } });
      expect(results(b.events)[0]).toMatchObject({ output: { workspaceDir: shared } });
      const agents = readFileSync(join(shared, "AGENTS.md"), "utf8");
      expect(agents.startsWith("# Team notes\n\nKeep me.\n\n<!-- agent-serve:begin")).toBe(true);
      expect(agents.match(/agent-serve:begin/g)).toHaveLength(1);
      expect(readFileSync(join(shared, "seed.txt"), "utf8")).toBe("the user's own file\n");
      expect(readFileSync(join(shared, "nested/deep.txt"), "utf8")).toBe("deep\n");

      const sent = await target.host.send([toolLine("where", {}), "/reply ok"].join("\n"), { workspaceDir: perSend, workspaceFiles: { "hello.txt": "hi" } });
      const events = await settled(target, base, sent.sessionId);
      expect(results(events)[0]).toMatchObject({ output: { workspaceDir: perSend } });
      expect(readFileSync(join(perSend, "hello.txt"), "utf8")).toBe("hi");
      expect(existsSync(join(perSend, ".cursor/skills/quick/SKILL.md"))).toBe(true);
      expect(existsSync(join(root, "ignored"))).toBe(false);
    } finally {
      await close();
    }
  });
});

describe("prepareWorkspace", () => {
  it("is a no-op for an unchanged plan, and a changed plan removes the generated files it dropped without re-seeding", async () => {
    const seeds = writeProject({ "seed.txt": "seed\n" });
    const dir = mkdtempSync(join(tmpdir(), "agent-serve-plan-"));
    cleanup.push(seeds, dir);
    const prepare = createWorkspacePreparer();
    const withSkills = project({ skills: { a: { description: "A", markdown: "a" }, b: { description: "B", markdown: "b" } }, workspaceSeed: { dir: seeds, files: 1 } });
    const first = planWorkspace(withSkills);
    await prepare(dir, first.plan);
    expect(readdirSync(join(dir, ".cursor/skills")).sort()).toEqual(["a", "b"]);
    rmSync(join(dir, "seed.txt"));
    writeFileSync(join(dir, ".cursor/skills/a/SKILL.md"), "edited");
    await prepare(dir, first.plan);
    // Unchanged plan: nothing is rewritten (the edit stays) and seeds are not copied again.
    expect(readFileSync(join(dir, ".cursor/skills/a/SKILL.md"), "utf8")).toBe("edited");
    expect(existsSync(join(dir, "seed.txt"))).toBe(false);

    const second = planWorkspace(project({ skills: { a: { description: "A2", markdown: "a" } }, workspaceSeed: { dir: seeds, files: 1 } }));
    expect(second.plan.fingerprint).not.toBe(first.plan.fingerprint);
    await prepare(dir, second.plan);
    expect(readdirSync(join(dir, ".cursor/skills"))).toEqual(["a"]);
    expect(readFileSync(join(dir, ".cursor/skills/a/SKILL.md"), "utf8")).toContain('description: "A2"');
    expect(existsSync(join(dir, "seed.txt"))).toBe(false);
  });
});

describe("workspace preparation off the turn's critical path", () => {
  it("lets the model start before the workspace is ready; tools and the turn's end wait for it", async () => {
    const root = writeProject(FILES);
    const stateRoot = mkdtempSync(join(tmpdir(), "agent-serve-prep-state-"));
    cleanup.push(root, stateRoot);
    const loaded = await loadProject(root);
    const local = createLocalRuntime({ stateRoot });
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    let preparing = 0;
    const runtime = {
      ...local,
      async prepareWorkspace(dir: string, plan: Parameters<NonNullable<typeof local.prepareWorkspace>>[1], files?: Record<string, string>) {
        preparing++;
        await gate;
        await local.prepareWorkspace!(dir, plan, files);
      },
    };
    const host = createHost({ agents: [{ slug: "prep", project: loaded, storage: createMemoryStorage(), runtime }], logger: quietLogger, drainTimeoutMs: 50, dev: true });
    const target: HostUnderTest = { kind: "in-process", host, fetch: (path, init = {}) => host.request(path, init, { ip: "127.0.0.1" }) };
    try {
      const script = [toolLine("read", { path: "AGENTS.md" }), "/reply done"].join("\n");
      const created = await target.fetch(`${base}/v1/session`, postJson({ message: script }));
      const { sessionId } = (await created.json()) as { sessionId: string };
      // The model's first step runs and asks for the tool while the workspace is still being prepared.
      const waiting = await eventually(async () => {
        const events = await allEvents(target, base, sessionId);
        return events.some((e) => e.type === "actions.requested") ? events : undefined;
      });
      expect(preparing).toBe(1);
      await new Promise((resolve) => setTimeout(resolve, 100));
      const held = await allEvents(target, base, sessionId);
      expect(held.map((e) => e.type)).not.toContain("action.result");
      expect(held.map((e) => e.type)).not.toContain("turn.completed");
      expect(waiting.length).toBeGreaterThan(0);
      open();
      const events = await settled(target, base, sessionId);
      // The tool ran in the prepared workspace: AGENTS.md was there.
      expect(JSON.stringify(results(events)[0])).toContain("You prepare workspaces.");
      expect(events.map((e) => e.type)).toContain("turn.completed");
    } finally {
      open();
      await host.close();
    }
  });
});
