/**
 * `install-skills` (docs/guide/cli.md "install-skills"): agent-serve's authoring skills into the
 * coding-assistant folders with a pointer in AGENTS.md, and `--from` installing third-party skills
 * into bot/skills/, which the project's own loader then reads (`info`, `validate`).
 */
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { main } from "../cli/main.ts";
import { tempProjects } from "./_temp-projects.ts";

const project = tempProjects("install-skills");

function cli(cwd: string) {
  let out = "";
  let err = "";
  const io = { stdout: { write: (s: string) => (out += s) }, stderr: { write: (s: string) => (err += s) }, env: { ...process.env, NO_COLOR: "1" }, cwd };
  return { out: () => out, err: () => err, run: (...argv: string[]) => main({ ...io, argv }) };
}

const NAMES = ["agent-serve-channels", "agent-serve-evals", "agent-serve-schedules", "agent-serve-testing", "agent-serve-tools"];

describe("install-skills", () => {
  test("writes the authoring skills for both assistants and one pointer in AGENTS.md, also on a rerun", async () => {
    const dir = project({ "bot/agent.ts": `import { defineAgent } from "agent-serve";\nexport default defineAgent({ model: "scripted" });\n`, "AGENTS.md": "# House rules\n\nBe kind.\n" });
    const { run, out } = cli(dir);
    expect(await run("install-skills", "--json")).toBe(0);
    const result = JSON.parse(out()) as { ok: boolean; skills: string[] };
    expect(result.ok).toBe(true);
    expect(result.skills.slice().sort()).toEqual(NAMES);
    for (const folder of [".cursor/skills", ".claude/skills"]) {
      expect(readdirSync(join(dir, folder)).sort()).toEqual(NAMES);
      for (const name of NAMES) {
        const text = readFileSync(join(dir, folder, name, "SKILL.md"), "utf8");
        expect(text).toMatch(new RegExp(`^---\\nname: ${name}\\ndescription: ".+"\\n---\\n`));
      }
    }
    expect(await cli(dir).run("install-skills")).toBe(0);
    const agents = readFileSync(join(dir, "AGENTS.md"), "utf8");
    expect(agents.startsWith("# House rules\n\nBe kind.\n\n<!-- agent-serve skills")).toBe(true);
    expect(agents.match(/## agent-serve skills/g)).toHaveLength(1);
  });

  test("--from installs skills into bot/skills/, where the agent's loader reads them", async () => {
    const dir = project({ "bot/agent.ts": `import { defineAgent } from "agent-serve";\nexport default defineAgent({ model: "scripted" });\n` });
    const source = join(dir, "..", "vendor-skills");
    mkdirSync(join(source, "pdf-forms", "scripts"), { recursive: true });
    writeFileSync(join(source, "pdf-forms", "SKILL.md"), "---\nname: pdf-forms\ndescription: Fill PDF forms with the bundled script\n---\n\nRun scripts/fill.sh.\n");
    writeFileSync(join(source, "pdf-forms", "scripts", "fill.sh"), "echo filled\n");
    const { run, out } = cli(dir);
    expect(await run("install-skills", "--from", source, "--json")).toBe(0);
    expect(JSON.parse(out())).toMatchObject({ ok: true, installed: [{ name: "pdf-forms", description: "Fill PDF forms with the bundled script" }] });
    expect(readFileSync(join(dir, "bot/skills/pdf-forms/scripts/fill.sh"), "utf8")).toBe("echo filled\n");
    const info = cli(dir);
    expect(await info.run("info", "--json")).toBe(0);
    expect(JSON.stringify(JSON.parse(info.out()))).toContain("Fill PDF forms with the bundled script");
    expect(await cli(dir).run("validate")).toBe(0);

    const again = cli(dir);
    expect(await again.run("install-skills", "--from", source)).toBe(1);
    expect(again.err()).toMatch(/already in .*bot\/skills: pdf-forms \(pass --force to replace them\)/);
    expect(await cli(dir).run("install-skills", "--from", source, "--force")).toBe(0);
  });

  test("--from checks every skill's frontmatter first: one bad skill installs none", async () => {
    const dir = project({});
    const source = join(dir, "..", "mixed-skills");
    for (const [name, text] of [["good", "---\ndescription: fine\n---\nbody\n"], ["no-description", "---\nname: no-description\n---\nbody\n"], ["no-frontmatter", "just text\n"]]) {
      mkdirSync(join(source, name!), { recursive: true });
      writeFileSync(join(source, name!, "SKILL.md"), text!);
    }
    const { run, err } = cli(dir);
    expect(await run("install-skills", "--from", source)).toBe(1);
    expect(err()).toMatch(/not installing: 2 skills with bad frontmatter/);
    expect(err()).toMatch(/no-description\/SKILL\.md: description is missing \(add description:/);
    expect(err()).toMatch(/no-frontmatter\/SKILL\.md: no frontmatter/);
    expect(existsSync(join(dir, "bot/skills/good"))).toBe(false);
    const url = cli(dir);
    expect(await url.run("install-skills", "--from", "https://github.com/acme/skills.git")).toBe(1);
    expect(url.err()).toMatch(/is not a folder: --from takes a local folder \(clone a git repository or unpack an npm package first/);
  });
});
