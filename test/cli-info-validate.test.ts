/**
 * `agent-serve validate` (exit codes, every diagnostic, --json) and `agent-serve info` (the
 * /v1/info object without a server), over projects written to a scratch directory.
 */
import { rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { InfoReport } from "../cli/info.ts";
import { run, scratchDir, toolsProject, writeFiles } from "./_cli-io.ts";

const { dir: scratch, env } = scratchDir("info-validate");
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const EXPERIMENTS = `[
  { id: "tone", arms: [
    { id: "control", weight: 3 },
    { id: "terse", weight: 1, model: { id: "openai/gpt-5-mini", params: [{ id: "effort", value: "low" }] }, instructions: "Answer in one line." },
  ] },
]`;

/** The tools project with a hook and an experiment: everything `info` should show. */
const clean = writeFiles(toolsProject(join(scratch, "clean")), {
  "bot/agent.ts": `import { defineAgent } from "agent-serve";\nexport default defineAgent({ name: "Toolbox", model: "scripted", experiments: ${EXPERIMENTS} });\n`,
  "bot/hooks/audit.ts": `export default { events: { "turn.completed": () => {} } };\n`,
});

const broken = writeFiles(join(scratch, "broken"), {
  "package.json": JSON.stringify({ name: "broken", type: "module" }),
  "bot/instructions.md": "You are broken.\n",
  "bot/agent.ts": [
    `export default {`,
    `  experiments: [`,
    `    { id: "dup", arms: [{ id: "a", weight: 1 }] },`,
    `    { id: "dup", arms: [{ id: "a", weight: 1 }, { id: "a", weight: -2 }] },`,
    `    { id: "paused", arms: [{ id: "x", weight: 0 }] },`,
    `    { id: "models", arms: [{ id: "fast", weight: 1, model: "openai/gpt-5-high" }, { id: "odd", weight: 1, model: "nope/x" }] },`,
    `  ],`,
    `};`,
  ].join("\n"),
});

describe("agent-serve validate", () => {
  it("exits 0 on a clean project and says so", async () => {
    const result = await run(["validate", clean], { env });
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    // The default allowlist offers shell, and the project does not turn on local.sandbox.
    expect(result.stdout).toBe(
      "warning [unsandboxed_shell] clean: shell is allowed without local.sandbox: the model's commands run as the serving user, unconfined, and can read files outside the workspace; set local: { sandbox: true } or leave shell out of tools\nok: 1 project, 0 errors, 1 warning\n",
    );
  });

  it("exits 1 on a project with errors and prints every one of them", async () => {
    const result = await run(["validate", broken], { env });
    expect(result.code).toBe(1);
    const lines = result.stdout.trimEnd().split("\n");
    expect(lines.at(-1)).toBe("invalid: 1 project, 5 errors, 2 warnings");
    expect(result.stdout).toContain('error [invalid_experiment] broken: bot/agent.ts: experiment "dup" is declared twice');
    expect(result.stdout).toContain('experiment "dup", arm "a" is declared twice');
    expect(result.stdout).toContain('experiment "dup", arm "a": weight must be a finite number of at least 0 (got -2)');
    expect(result.stdout).toContain('experiment "paused": at least one arm needs a positive weight');
    expect(result.stdout).toMatch(/error \[invalid_model\] .*arm "fast": model "openai\/gpt-5-high" encodes effort or speed/);
    expect(result.stdout).toMatch(/warning \[unknown_model\] .*arm "odd": model "nope\/x" is not one this host can call/);
  });

  it("--json reports the same, and serve refuses the same project", async () => {
    const result = await run(["validate", broken, "--json"], { env });
    expect(result.code).toBe(1);
    const report = JSON.parse(result.stdout) as { ok: boolean; errors: number; warnings: number; projects: Array<{ slug: string; diagnostics: Array<{ code: string }> }> };
    expect(report).toMatchObject({ ok: false, errors: 5, warnings: 2 });
    expect(report.projects[0]!.slug).toBe("broken");
    expect(report.projects[0]!.diagnostics.map((d) => d.code).sort()).toEqual([
      "invalid_experiment",
      "invalid_experiment",
      "invalid_experiment",
      "invalid_experiment",
      "invalid_model",
      "unknown_model",
      "unsandboxed_shell",
    ]);
    const serve = await run(["serve", broken, "--port", "0", "--state-root", join(scratch, "state")], { env });
    expect(serve.code).toBe(1);
    expect(serve.stderr).toContain("not starting: 5 errors");
  });

  it("exits 1 when the directory holds no project", async () => {
    const result = await run(["validate", join(scratch, "missing")], { env });
    expect(result.code).toBe(1);
    expect(result.stdout).toContain("error [no_project]");
  });
});

describe("agent-serve info", () => {
  it("--json prints the /v1/info object of each project without starting a server", async () => {
    const result = await run(["info", clean, "--json"], { env });
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout) as InfoReport;
    expect(report.diagnostics).toEqual([]);
    expect(report.projects).toHaveLength(1);
    const info = report.projects[0]!;
    expect(info).toMatchObject({ name: "Toolbox", slug: "clean", dir: clean, model: { id: "scripted", params: {} }, hooks: ["audit"], diagnostics: [] });
    expect(info.tools.map((tool) => [tool.name, tool.needsApproval])).toEqual([
      ["add", false],
      ["boom", false],
      ["danger", true],
    ]);
    expect(info.tools[0]!.inputSchema).toMatchObject({ type: "object", properties: { a: { type: "number" }, b: { type: "number" } }, required: ["a", "b"] });
    expect(info.abs).toEqual([
      {
        id: "tone",
        arms: [
          { id: "control", weight: 3, model: null, params: {}, replacesInstructions: false },
          { id: "terse", weight: 1, model: { id: "openai/gpt-5-mini", params: { effort: "low" } }, params: {}, replacesInstructions: true },
        ],
      },
    ]);
    const paths = info.channels[0]!.routes.map((route) => `${route.method} ${route.path}`);
    expect(paths).toContain("GET /clean/v1/abs");
    expect(paths).toContain("POST /clean/v1/session");
    expect(info.a2a).toEqual({ agentCard: "/clean/.well-known/agent-card.json", jsonRpc: "/clean/v1/a2a" });
  });

  it("without a model or credential it says the scripted model would serve; --mode single drops the slug prefix", async () => {
    const result = await run(["info", "examples/hello", "--json", "--mode", "single"], { env });
    expect(result.code).toBe(0);
    const info = (JSON.parse(result.stdout) as InfoReport).projects[0]!;
    expect(info.model.id).toBe("scripted");
    expect(info.diagnostics.map((d) => d.code)).toEqual(["scripted_model_fallback"]);
    expect(info.channels[0]!.routes.map((route) => route.path)).toContain("/v1/info");

    const keyed = JSON.parse((await run(["info", "examples/hello", "--json", "--api-key", "sk-test"], { env })).stdout) as InfoReport;
    expect(keyed.projects[0]!.model).toEqual({ id: "openai/gpt-5-mini", params: {} });
  });

  it("prints a readable summary", async () => {
    const result = await run(["info", clean], { env });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`Toolbox (clean, ${clean})`);
    expect(result.stdout).toMatch(/^ {2}model {8}scripted$/m);
    expect(result.stdout).toMatch(/danger {2}Deletes things \[approval\]/);
    expect(result.stdout).toMatch(/hooks +audit/);
    expect(result.stdout).toContain("tone: control (weight 3), terse (weight 1; model openai/gpt-5-mini; instructions)");
    expect(result.stdout).toMatch(/a2a +card \/clean\/\.well-known\/agent-card\.json/);
    expect(result.stdout).toContain("JSON-RPC /clean/v1/a2a");
  });

  it("exits 1 when the directory holds no project", async () => {
    const result = await run(["info", join(scratch, "missing"), "--json"], { env });
    expect(result.code).toBe(1);
    expect((JSON.parse(result.stdout) as InfoReport).diagnostics.map((d) => d.code)).toEqual(["no_project"]);
  });
});
