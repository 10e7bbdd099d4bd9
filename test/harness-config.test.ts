/**
 * Load-time checks of the harness configuration (docs/guide/agent-projects.md "Agent
 * configuration"): the tools allowlist, the cloud-runtime rules and skill definitions, as
 * diagnostics of `loadProject`.
 */
import { rmSync } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { loadProject } from "../loader/load-project.ts";
import type { Diagnostic } from "../src/base/definitions/project.ts";
import { writeProject } from "./_workspace.ts";

const cleanup: string[] = [];
afterAll(() => {
  for (const dir of cleanup) rmSync(dir, { recursive: true, force: true });
});

async function load(agent: string, files: Record<string, string> = {}): Promise<Diagnostic[]> {
  const root = writeProject({ "bot/instructions.md": "x", "bot/agent.ts": `export default ${agent};\n`, ...files });
  cleanup.push(root);
  return (await loadProject(root)).diagnostics;
}

const summary = (diagnostics: Diagnostic[]): string[] => diagnostics.map((d) => `${d.severity} ${d.code}`).sort();

const AGENT_TOOL = { "bot/tools/build.ts": `export default { description: "Builds", execution: "agent", script: "make" };\n` };
const SKILL = { "bot/skills/deploy.md": "Deploy carefully.\n" };
const SEED = { "bot/sandbox/workspace/README.md": "seed\n" };

describe("harness configuration diagnostics", () => {
  it("cloud runtime: an allowlist is an error; agent tools, skills, seeds and a missing cloud block are warnings", async () => {
    const diagnostics = await load(`{ runtime: "cloud", tools: ["shell"] }`, { ...AGENT_TOOL, ...SKILL, ...SEED });
    expect(summary(diagnostics)).toEqual([
      "error cloud_tools_allowlist",
      "warning cloud_agent_tools",
      "warning cloud_block_missing",
      "warning cloud_sandbox_seeds",
      "warning cloud_skills",
    ]);
    expect(diagnostics.find((d) => d.code === "cloud_tools_allowlist")?.file).toBe("bot/agent.ts");
  });

  it("cloud runtime with a cloud block and nothing local is clean (the runners are the host's start-up matter)", async () => {
    expect(summary(await load(`{ runtime: "cloud", cloud: { repos: [] } }`))).toEqual([]);
  });

  it("a malformed cloud block is an error naming each field (never a value)", async () => {
    const diagnostics = await load(`{ runtime: "cloud", cloud: { repos: [{}, { url: "u", startingRef: "-x" }], env: { "1X": "secret-value", OK: 3 }, envVars: ["A B"], extra: 1 } }`);
    const messages = diagnostics.filter((d) => d.code === "invalid_agent_config").map((d) => d.message);
    expect(messages).toEqual([
      "cloud.extra is not a cloud option (repos, env, envVars)",
      "cloud.repos[0].url must be a repository URL or path",
      "cloud.repos[1].startingRef must be a branch, tag or commit",
      'cloud.env: "1X" is not an environment variable name',
      "cloud.env.OK must be a string",
      "cloud.envVars must list environment variable names",
    ]);
    expect(JSON.stringify(diagnostics)).not.toContain("secret-value");
  });

  it("unknown allowlist names warn (the turn fails); leaving out shell warns when agent tools exist", async () => {
    const unknown = await load(`{ tools: ["shell", "browser"] }`);
    expect(summary(unknown)).toEqual(["warning unknown_harness_tools"]);
    expect(unknown[0]!.message).toMatch(/"browser".*every turn fails with a ConfigurationError/);
    const blocked = await load(`{ tools: ["read"] }`, AGENT_TOOL);
    expect(summary(blocked)).toEqual(["warning agent_tools_blocked"]);
    expect(blocked[0]!.message).toMatch(/shell.*build will not be offered/);
    expect(await load(`{ tools: ["read", "shell"] }`, AGENT_TOOL)).toEqual([]);
    expect(await load(`{}`, AGENT_TOOL)).toEqual([]);
  });

  it("malformed allowlists and local options are errors", async () => {
    expect(summary(await load(`{ tools: "shell" }`))).toEqual(["error invalid_agent_config"]);
    expect(summary(await load(`{ local: { cwd: 3, sandbox: "yes" } }`))).toEqual(["error invalid_agent_config", "error invalid_agent_config"]);
    expect(summary(await load(`{ runtime: "remote" }`))).toEqual(["error invalid_agent_config"]);
  });

  it("skills: a folder skill needs a description; names are unique across forms", async () => {
    const diagnostics = await load(`{}`, {
      "bot/skills/nodesc/SKILL.md": "# No frontmatter\n",
      "bot/skills/twice.md": "Twice.\n",
      "bot/skills/twice.ts": `export default { description: "Twice", markdown: "x" };\n`,
      "bot/skills/badfiles.ts": `export default { description: "Bad", markdown: "x", files: { "../up.md": "x" } };\n`,
      "bot/skills/empty.md": "",
    });
    expect(diagnostics.map((d) => [d.code, d.file])).toEqual([
      ["invalid_skill", "bot/skills/badfiles.ts"],
      ["invalid_skill", "bot/skills/empty.md"],
      ["invalid_skill", "bot/skills/nodesc/"],
      ["duplicate_skill", "bot/skills/twice.ts"],
    ]);
  });
});
