/**
 * Strict validation: unknown keys with a "did you mean", schema shapes, hook event names, unknown
 * folders, missing credentials and syntax errors with a location and a code frame.
 */
import { describe, expect, it } from "vitest";
import { loadProject } from "../loader/load-project.ts";
import { codeFrame } from "../loader/syntax-error.ts";
import { run, scratchDir } from "./_cli-io.ts";
import { summarizeDiagnostics, tempProjects } from "./_temp-projects.ts";

const project = tempProjects("strict");
const { env } = scratchDir("strict-cli");
const message = (diagnostics: Array<{ code: string; message: string }>, code: string): string =>
  diagnostics.filter((d) => d.code === code).map((d) => d.message).join("\n");

describe("strict validation", () => {
  it("unknown keys in defineAgent and defineTool are warnings with a did-you-mean", async () => {
    const dir = project({
      "bot/agent.ts": `import { defineAgent } from "agent-serve";\nexport default defineAgent({ modle: "scripted", concurency: { maxRunningTurns: 2 }, persistent: true } as never);\n`,
      "bot/tools/lookup.ts": `export default { description: "d", execute: () => 1, inputSchma: { type: "object" } };\n`,
    });
    const loaded = await loadProject(dir);
    expect(summarizeDiagnostics(loaded.diagnostics)).toEqual([
      "info:ignored_key:bot/agent.ts",
      "warning:unknown_key:bot/agent.ts",
      "warning:unknown_key:bot/agent.ts",
      "warning:unknown_key:bot/tools/lookup.ts",
    ]);
    const text = message(loaded.diagnostics, "unknown_key");
    expect(text).toContain('agent config: unknown key "modle" (did you mean "model"?)');
    expect(text).toContain('agent config: unknown key "concurency" (did you mean "concurrency"?)');
    expect(text).toContain('tool lookup: unknown key "inputSchma" (did you mean "inputSchema"?)');
  });

  it("unknown keys of schedules, artifacts, connections, subagents and skills are warnings too", async () => {
    const dir = project({
      "bot/schedules/nightly.ts": `export default { cron: "0 3 * * *", markdown: "Report.", catchup: true };\n`,
      "bot/artifacts.ts": `export default { kinds: { report: { description: "A report" } }, agentTools: true };\n`,
      "bot/mcp-connections/docs.ts": `export default { url: "https://example.com/mcp", header: { a: "b" } };\n`,
      "bot/subagents/fixer/agent.ts": `export default { description: "Fixes", modle: "scripted" };\n`,
      "bot/skills/triage.ts": `export default { description: "Triage", markdown: "Steps", file: {} };\n`,
    });
    const loaded = await loadProject(dir);
    const text = message(loaded.diagnostics, "unknown_key");
    expect(text).toContain('schedule nightly: unknown key "catchup" (did you mean "catchUp"?)');
    expect(text).toContain('artifacts: unknown key "agentTools" (did you mean "agentTool"?)');
    expect(text).toContain('connection docs: unknown key "header" (did you mean "headers"?)');
    expect(text).toContain('subagent fixer: unknown key "modle" (did you mean "model"?)');
    expect(text).toContain('skill triage: unknown key "file" (did you mean "files"?)');
  });

  it("an inputSchema that is neither a schema-validator nor JSON Schema is an error; bad effects too", async () => {
    const dir = project({
      "bot/tools/order.ts": `export default { description: "d", inputSchema: { orderId: "string" }, execute: () => 1 };\n`,
      "bot/tools/typed.ts": `export default { description: "d", inputSchema: { type: "object", properties: { id: "string" } }, execute: () => 1 };\n`,
      "bot/tools/effect.ts": `export default { description: "d", effect: "delete", execute: () => 1 };\n`,
      "bot/tools/fine.ts": `export default { description: "d", inputSchema: { type: "object", properties: { id: { type: "string" } } }, effect: "write", dryRunResult: { ok: true }, execute: () => 1 };\n`,
    });
    const loaded = await loadProject(dir);
    expect(summarizeDiagnostics(loaded.diagnostics)).toEqual([
      "error:invalid_tool_effect:bot/tools/effect.ts",
      "error:invalid_tool_input_schema:bot/tools/order.ts",
      "error:invalid_tool_input_schema:bot/tools/typed.ts",
    ]);
    expect(message(loaded.diagnostics, "invalid_tool_input_schema")).toMatch(/looks like a map of field types \(\{orderId: "string"\}\)/);
    expect(Object.keys(loaded.tools ?? {})).toEqual(["fine"]);
  });

  it("a hook on an unknown event is a warning naming the closest event", async () => {
    const dir = project({ "bot/hooks/audit.ts": `export default { events: { "turn.complete": () => {}, "*": () => {} } };\n` });
    const loaded = await loadProject(dir);
    expect(summarizeDiagnostics(loaded.diagnostics)).toEqual(["warning:unknown_hook_event:bot/hooks/audit.ts"]);
    expect(message(loaded.diagnostics, "unknown_hook_event")).toContain('no event is named "turn.complete" (did you mean "turn.completed"?)');
  });

  it("unknown folders and files under bot/ are warnings that name them", async () => {
    const dir = project({ "bot/tool/x.ts": "export default {};\n", "bot/host-connections/a.ts": "export default {};\n", "bot/notes.txt": "x", "bot/lib/util.ts": "export {};\n" });
    const loaded = await loadProject(dir);
    expect(summarizeDiagnostics(loaded.diagnostics)).toEqual([
      "warning:unknown_file:bot/notes.txt",
      "warning:unknown_folder:bot/tool/",
      "warning:unsupported_folder:bot/host-connections/",
    ]);
    expect(message(loaded.diagnostics, "unknown_folder")).toContain("bot/tool/ is not loaded (did you mean bot/tools/?)");
  });

  it("a syntax error reports file:line:column and a code frame", async () => {
    const dir = project({ "bot/tools/bad.ts": `export default {\n  description: "d",\n  execute: () => { return 1 +; },\n};\n` });
    const result = await run(["validate", dir], { env });
    expect(result.code).toBe(1);
    expect(result.stdout).toContain("cannot load bot/tools/bad.ts: bot/tools/bad.ts:3:30: Expression expected");
    expect(result.stdout).toContain("> 3 |   execute: () => { return 1 +; },\n    |                              ^");
    expect(codeFrame("a\nbb\nccc", 2, 2)).toBe("  1 | a\n> 2 | bb\n    |  ^\n  3 | ccc");
  });

  it("validate warns about a provider model whose credential or base URL is missing", async () => {
    const dir = project({ "bot/agent.ts": `export default { model: "anthropic/claude-sonnet-4-5" };\n` });
    const result = await run(["validate", dir], { env });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/warning \[missing_model_credential\] .*ANTHROPIC_API_KEY/);
    const withKey = await run(["validate", dir], { env: { ...env, ANTHROPIC_API_KEY: "k" } });
    expect(withKey.stdout).not.toContain("missing_model_credential");
  });

  it("validate warns about an Agent SDK model id it would serve on the scripted model, as serve does (issue 34)", async () => {
    const dir = project({ "bot/agent.ts": `import { defineAgent } from "@cursor/bdk";

export default defineAgent({ model: "grok-4.5" });
` });
    const result = await run(["validate", dir], { env });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(
      /warning \[scripted_model_fallback\] p\d+: bot\/agent\.ts: model "grok-4\.5" needs the xai credential \(XAI_API_KEY, --api-key or agent-serve login\): serving with the offline scripted model\n/,
    );
    const json = JSON.parse((await run(["validate", dir, "--json"], { env })).stdout) as { warnings: number; projects: Array<{ diagnostics: Array<{ code: string }> }> };
    expect(json.projects[0]!.diagnostics.map((d) => d.code)).toContain("scripted_model_fallback");
    const withKey = await run(["validate", dir], { env: { ...env, XAI_API_KEY: "k" } });
    expect(withKey.stdout).not.toContain("scripted_model_fallback");
    expect(withKey.stdout).not.toContain("grok-4.5");
  });
});
