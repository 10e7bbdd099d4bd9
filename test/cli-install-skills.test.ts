/**
 * `install-skills` (docs/guide/cli.md "install-skills"): agent-serve's authoring skills into the
 * coding-assistant folders with a pointer in AGENTS.md, and `--from` installing third-party skills
 * into bot/skills/, which the project's own loader then reads (`info`, `validate`).
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
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
    expect(await url.run("install-skills", "--from", `file://${join(dir, "..", "no-such-repo")}`)).toBe(1);
    expect(url.err()).toMatch(/git clone file:\/\/.*no-such-repo failed: .*\(check the URL and your access; git must be installed\)/);
  });

  test("--from a git URL clones it with git and installs the skills under skills/", async () => {
    const dir = project({ "bot/agent.ts": `import { defineAgent } from "agent-serve";\nexport default defineAgent({ model: "scripted" });\n` });
    const repo = join(dir, "..", "skills-repo");
    mkdirSync(join(repo, "skills", "changelog"), { recursive: true });
    writeFileSync(join(repo, "skills", "changelog", "SKILL.md"), "---\nname: changelog\ndescription: Write changelog entries\n---\nKeep it short.\n");
    writeFileSync(join(repo, "README.md"), "skills\n");
    const git = (...args: string[]) => execFileSync("git", args, { cwd: repo, env: { ...process.env, GIT_AUTHOR_NAME: "t", GIT_AUTHOR_EMAIL: "t@example.com", GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@example.com" } });
    git("init", "--quiet");
    git("add", ".");
    git("commit", "--quiet", "-m", "skills");
    const { run, out, err } = cli(dir);
    expect(await run("install-skills", "--from", `file://${repo}`, "--json"), err()).toBe(0);
    expect(JSON.parse(out())).toMatchObject({ ok: true, source: "git", installed: [{ name: "changelog" }] });
    expect(readFileSync(join(dir, "bot/skills/changelog/SKILL.md"), "utf8")).toContain("Keep it short.");
    expect(existsSync(join(dir, "bot/skills/changelog/.git"))).toBe(false);
  });

  test("--from an npm package fetches it with npm pack (here from a loopback registry) and unpacks it", async () => {
    const dir = project({ "bot/agent.ts": `import { defineAgent } from "agent-serve";\nexport default defineAgent({ model: "scripted" });\n` });
    const pkg = join(dir, "..", "skills-pkg");
    mkdirSync(join(pkg, "release-notes"), { recursive: true });
    writeFileSync(join(pkg, "package.json"), JSON.stringify({ name: "acme-skills", version: "1.2.0" }));
    writeFileSync(join(pkg, "release-notes", "SKILL.md"), "---\ndescription: Draft release notes\n---\nFrom the merged PRs.\n");
    const packs = join(dir, "..", "packs");
    mkdirSync(packs);
    execFileSync("npm", ["pack", pkg, "--pack-destination", packs, "--silent"], { env: { ...process.env, npm_config_cache: join(packs, ".cache") } });
    const tarball = readFileSync(join(packs, "acme-skills-1.2.0.tgz"));
    const registry = createServer((request, response) => {
      const base = `http://127.0.0.1:${(registry.address() as AddressInfo).port}`;
      if (request.url === "/acme-skills") {
        const dist = { tarball: `${base}/acme-skills/-/acme-skills-1.2.0.tgz`, shasum: createHash("sha1").update(tarball).digest("hex"), integrity: `sha512-${createHash("sha512").update(tarball).digest("base64")}` };
        response.writeHead(200, { "content-type": "application/json" });
        response.end(JSON.stringify({ name: "acme-skills", "dist-tags": { latest: "1.2.0" }, versions: { "1.2.0": { name: "acme-skills", version: "1.2.0", dist } } }));
      } else if (request.url === "/acme-skills/-/acme-skills-1.2.0.tgz") {
        response.writeHead(200, { "content-type": "application/octet-stream" });
        response.end(tarball);
      } else {
        response.writeHead(404).end();
      }
    });
    await new Promise<void>((done) => registry.listen(0, "127.0.0.1", done));
    try {
      let out = "";
      let err = "";
      const env = { ...process.env, NO_COLOR: "1", npm_config_registry: `http://127.0.0.1:${(registry.address() as AddressInfo).port}/`, npm_config_cache: join(packs, ".cache2") };
      const code = await main({ argv: ["install-skills", "--from", "acme-skills", "--json"], stdout: { write: (t: string) => (out += t) }, stderr: { write: (t: string) => (err += t) }, env, cwd: dir });
      expect(code, err).toBe(0);
      expect(JSON.parse(out)).toMatchObject({ ok: true, source: "npm", installed: [{ name: "release-notes", description: "Draft release notes" }] });
      expect(readFileSync(join(dir, "bot/skills/release-notes/SKILL.md"), "utf8")).toContain("From the merged PRs.");
    } finally {
      registry.closeAllConnections();
      await new Promise((done) => registry.close(done));
    }
  }, 60_000);
});
