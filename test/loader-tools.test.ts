import { rmSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { loadProject } from "../loader/load-project.ts";
import { runServerTool } from "../src/engine/tools/run-tool.ts";
import { toolInputJsonSchema, validateToolInput } from "../src/engine/tools/schema.ts";
import { scratchSession } from "../src/engine/tools/scratch-session.ts";
import type { ToolContext } from "../src/base/definitions/tools.ts";
import { summarizeDiagnostics, tempProjects } from "./_temp-projects.ts";
import { testHostServices } from "./_host-services.ts";

// Temp dirs live outside the repository, so agent-serve and valibot resolve only through the
// loader's hooks, as they do for a real project without node_modules.
const project = tempProjects("loader-tools");
const summary = summarizeDiagnostics;

const WEATHER = `
import { defineTool } from "agent-serve/tools";
import * as v from "valibot";
import { shout } from "../lib/format";

export default defineTool({
  description: "Weather for a city",
  inputSchema: v.object({ city: v.pipe(v.string(), v.minLength(1)), days: v.optional(v.pipe(v.string(), v.transform(Number)), "1") }),
  execute: async ({ city, days }, ctx) => shout(\`\${city} for \${days} day(s) via \${ctx.toolCallId}\`),
});
`;

const context: ToolContext = {
  toolCallId: "call_1",
  session: scratchSession({ authenticator: "test", principalId: "tester", principalType: "local" }),
  workspaceDir: undefined,
  stateRoot: undefined,
  host: testHostServices(),
  send: () => Promise.reject(new Error("unused")),
  getSession: () => Promise.resolve(null),
  artifacts: { tag: () => Promise.reject(new Error("unused")), list: () => Promise.resolve([]) },
  signal: new AbortController().signal,
};

describe("loading tools, hooks and artifacts", () => {
  test("a full project: tools, nested hooks, artifacts; helpers are not definitions", async () => {
    const dir = project({
      "bot/lib/format.ts": `export const shout = (text: string): string => text.toUpperCase();\n`,
      "bot/tools/weather.ts": WEATHER,
      "bot/tools/plain.mjs": `export default { description: "Echo", inputSchema: { type: "object", properties: { q: { type: "string" } } }, execute: (input) => input };\n`,
      "bot/tools/shell.ts": `export default { description: "List files", execution: "agent", script: "ls" };\n`,
      "bot/tools/_helper.ts": `export default 42;\n`,
      "bot/tools/weather.test.ts": `throw new Error("a test file is not a tool");\n`,
      "bot/tools/nested/deep.ts": `throw new Error("tools do not nest");\n`,
      "bot/hooks/audit.ts": `import { defineHook } from "agent-serve/hooks";\nexport default defineHook({ events: { "*": () => {} } });\n`,
      "bot/hooks/team/notify.ts": `export default { events: { "turn.completed": () => "sent" } };\n`,
      "bot/hooks/_shared.ts": `export default null;\n`,
      "bot/artifacts.ts": `export default { kinds: { report: { description: "A report" } }, agentTool: true, max: 10 };\n`,
    });
    const loaded = await loadProject(dir);
    expect(loaded.diagnostics).toEqual([]);
    expect(Object.keys(loaded.tools ?? {}).sort()).toEqual(["plain", "shell", "weather"]);
    expect(Object.keys(loaded.hooks ?? {}).sort()).toEqual(["audit", "team/notify"]);
    expect(loaded.artifacts).toEqual({ kinds: { report: { description: "A report" } }, agentTool: true, max: 10 });

    const weather = loaded.tools?.weather;
    if (!weather) throw new Error("weather did not load");
    expect(toolInputJsonSchema(weather)).toMatchObject({ type: "object", properties: { city: { type: "string", minLength: 1 } }, required: ["city"] });
    const input = await validateToolInput(weather, { city: "Oslo", days: "2" });
    expect(input).toEqual({ city: "Oslo", days: 2 });
    expect(await runServerTool(weather, input, context)).toEqual({ isError: false, result: "OSLO FOR 2 DAY(S) VIA CALL_1" });
    await expect(validateToolInput(weather, { city: "" })).rejects.toMatchObject({ status: 400, code: "invalid_request" });
    expect(await loaded.hooks?.["team/notify"]?.events["turn.completed"]?.(
      { type: "turn.completed", index: 0, sessionId: "ses_1", at: "", data: {} },
      { session: { id: "ses_1", channel: "http", mode: "chat", auth: { authenticator: "test", principalId: "anon", principalType: "anonymous" } }, channel: { id: "http" }, host: testHostServices(), artifacts: context.artifacts, logger: console },
    )).toBe("sent");
  });

  test("broken and invalid files become diagnostics with the file; the rest still loads", async () => {
    const dir = project({
      "bot/tools/good.ts": `export default { description: "Good", execute: () => "ok" };\n`,
      "bot/tools/throws.ts": `throw new Error("kaput at import");\n`,
      "bot/tools/syntax.ts": `export default { description: "x", execute: ( => 1 };\n`,
      "bot/tools/missing-dep.ts": `import { nothing } from "./not-there";\nexport default { description: "x", execute: () => nothing };\n`,
      "bot/tools/no-description.ts": `export default { execute: () => 1 };\n`,
      "bot/tools/no-default.ts": `export const tool = { description: "x", execute: () => 1 };\n`,
      "bot/tools/bad.name.ts": `export default { description: "x", execute: () => 1 };\n`,
      "bot/tools/approve-agent.ts": `export default { description: "x", execution: "agent", script: "true", needsApproval: true };\n`,
      "bot/tools/dup.ts": `export default { description: "x", execute: () => 1 };\n`,
      "bot/tools/dup.js": `export default { description: "y", execute: () => 2 };\n`,
      "bot/hooks/ok.ts": `export default { events: { "*": () => {} } };\n`,
      "bot/hooks/sub/bad.ts": `export default { events: { "turn.completed": "not a function" } };\n`,
      "bot/hooks/sub/throws.ts": `throw new Error("hook kaput");\n`,
      "bot/artifacts.ts": `export default 5;\n`,
    });
    const loaded = await loadProject(dir);
    expect(summary(loaded.diagnostics)).toEqual(
      [
        "error:tool_import_failed:bot/tools/throws.ts",
        "error:tool_import_failed:bot/tools/syntax.ts",
        "error:tool_import_failed:bot/tools/missing-dep.ts",
        "error:missing_tool_description:bot/tools/no-description.ts",
        "error:invalid_tool:bot/tools/no-default.ts",
        "error:invalid_tool_name:bot/tools/bad.name.ts",
        "warning:agent_tool_approval_ignored:bot/tools/approve-agent.ts",
        "error:duplicate_tool:bot/tools/dup.ts",
        "error:invalid_hook_handler:bot/hooks/sub/bad.ts",
        "error:hook_import_failed:bot/hooks/sub/throws.ts",
        "error:invalid_artifacts:bot/artifacts.ts",
      ].sort(),
    );
    expect(loaded.diagnostics.find((d) => d.file === "bot/tools/throws.ts")?.message).toContain("kaput at import");
    // A warning keeps the tool; an error drops it. Of two files with one name, the first loaded wins.
    expect(Object.keys(loaded.tools ?? {}).sort()).toEqual(["approve-agent", "dup", "good"]);
    expect(loaded.tools?.dup?.description).toBe("y");
    expect(Object.keys(loaded.hooks ?? {})).toEqual(["ok"]);
    expect(loaded.artifacts).toBeUndefined();
  });

  test("an artifacts.ts that fails to import is a diagnostic", async () => {
    const loaded = await loadProject(project({ "bot/artifacts.ts": `import "./nowhere.ts";\nexport default {};\n` }));
    expect(summary(loaded.diagnostics)).toEqual(["error:artifacts_import_failed:bot/artifacts.ts"]);
  });

  test("artifacts.ts is validated; an authored tag_artifact shadows the built-in with a warning", async () => {
    const invalid = await loadProject(project({ "bot/artifacts.ts": `export default { kinds: { report: { description: "R" } }, max: 0 };\n` }));
    expect(summary(invalid.diagnostics)).toEqual(["error:invalid_artifacts_max:bot/artifacts.ts"]);
    expect(invalid.artifacts).toBeUndefined();
    const shadowed = await loadProject(
      project({
        "bot/artifacts.ts": `export default { kinds: { report: { description: "R" } }, agentTool: true };\n`,
        "bot/tools/tag_artifact.ts": `export default { description: "Mine", execute: () => "mine" };\n`,
      }),
    );
    expect(summary(shadowed.diagnostics)).toEqual(["warning:tool_shadows_builtin:bot/tools/tag_artifact.ts"]);
    expect(shadowed.tools?.tag_artifact?.description).toBe("Mine");
    expect(shadowed.artifacts?.agentTool).toBe(true);
  });

  test("a tools path that is not a folder is a diagnostic", async () => {
    const loaded = await loadProject(project({ "bot/tools": "not a folder\n" }));
    expect(summary(loaded.diagnostics)).toEqual(["error:tools_unreadable:bot/tools/"]);
  });

  test("a project without these folders has no tools, hooks or artifacts", async () => {
    const loaded = await loadProject(project({}));
    expect(loaded.diagnostics).toEqual([]);
    expect(loaded.tools).toBeUndefined();
    expect(loaded.hooks).toBeUndefined();
    expect(loaded.artifacts).toBeUndefined();
  });

  test("the legacy agent/ root loads its tools too", async () => {
    const dir = project({ "agent/instructions.md": "Hi.\n", "agent/tools/old.ts": `export default { description: "Old", execute: () => "old" };\n` });
    rmSync(join(dir, "bot"), { recursive: true });
    const loaded = await loadProject(dir);
    expect(Object.keys(loaded.tools ?? {})).toEqual(["old"]);
  });
});
