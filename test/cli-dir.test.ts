/** `--dir <dir>` on every project command, the Agent SDK's form (docs/guide/cli.md). */
import { rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { run, scratchDir } from "./_cli-io.ts";

const { dir: scratch, env } = scratchDir("cli-dir");
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe("--dir", () => {
  it("validate, info, run, sessions, eval and init take the project directory as --dir", async () => {
    const dir = join(scratch, "helper");
    expect((await run(["init", "--dir", dir], { env, cwd: scratch })).code).toBe(0);
    expect((await run(["validate", "--dir", dir], { env, cwd: scratch })).stdout).toContain("ok: 1 project");
    const info = JSON.parse((await run(["info", "--dir", dir, "--json"], { env, cwd: scratch })).stdout) as { projects: Array<{ slug: string }> };
    expect(info.projects.map((p) => p.slug)).toEqual(["helper"]);
    const reply = await run(["run", "--dir", dir, "--message", "/reply via dir"], { env, cwd: scratch });
    expect(reply.stdout).toContain("via dir");
    const sessions = JSON.parse((await run(["sessions", "--dir", dir, "--json"], { env, cwd: scratch })).stdout) as { sessions: unknown[] };
    expect(sessions.sessions.length).toBeGreaterThan(0);
    const evals = await run(["eval", "--dir", dir, "--list", "--json"], { env, cwd: scratch });
    expect(evals.code).toBe(0);
    for (const command of ["serve", "dev", "chat", "playground", "call", "logs", "cost"]) {
      const help = await run([command, "--help"], { env, cwd: scratch });
      expect(help.stdout, command).toMatch(/--dir <dir>/);
    }
  });

  it("a [dir] argument and a different --dir are a usage error", async () => {
    const result = await run(["validate", "a", "--dir", "b"], { env, cwd: scratch });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('two project directories given: "a" and --dir "b"');
  });
});
