/**
 * `convert-automation <file>` (docs/guide/cli.md "convert-automation"): each trigger becomes a
 * project that `validate` passes and `info` reads as the schedule or channel it should be;
 * `--dry-run` writes nothing; a bad description says what to fix.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { main } from "../cli/main.ts";

const scratch = mkdtempSync(join(tmpdir(), "agent-serve-convert-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function cli() {
  let out = "";
  let err = "";
  const io = { stdout: { write: (s: string) => (out += s) }, stderr: { write: (s: string) => (err += s) }, env: { ...process.env, NO_COLOR: "1" }, cwd: scratch };
  return { out: () => out, err: () => err, run: (...argv: string[]) => main({ ...io, argv }) };
}

async function convertAndInspect(file: string, text: string): Promise<{ dir: string; info: Record<string, unknown> }> {
  writeFileSync(join(scratch, file), text);
  const converted = cli();
  expect(await converted.run("convert-automation", file, "--json"), converted.out() + converted.err()).toBe(0);
  const { dir } = JSON.parse(converted.out()) as { dir: string };
  const validate = cli();
  expect(await validate.run("validate", dir), validate.out() + validate.err()).toBe(0);
  const info = cli();
  expect(await info.run("info", dir, "--json")).toBe(0);
  const projects = (JSON.parse(info.out()) as { projects: Array<Record<string, unknown>> }).projects;
  return { dir, info: projects[0]! };
}

describe("convert-automation", () => {
  test("a cron trigger becomes a markdown schedule holding the prompt", async () => {
    const { dir, info } = await convertAndInspect("nightly.yaml", 'name: Nightly Digest\ntrigger:\n  cron: "0 3 * * *"\nprompt: |\n  Summarise yesterday\'s notes.\ntools: [read, grep]\nmodel: scripted\n');
    expect(dir).toBe(join(scratch, "nightly-digest"));
    expect(readFileSync(join(dir, "bot/schedules/nightly-digest.md"), "utf8")).toBe('---\ncron: "0 3 * * *"\n---\nSummarise yesterday\'s notes.\n');
    expect(readFileSync(join(dir, "bot/agent.ts"), "utf8")).toContain('defineAgent({ model: "scripted", tools: ["read","grep"]');
    expect(JSON.stringify(info.schedules)).toContain("nightly-digest");
  });

  test("a GitHub event becomes the GitHub channel with the matching hook", async () => {
    const { dir, info } = await convertAndInspect("review.json", JSON.stringify({ trigger: { github: { event: "pull_request", actions: ["opened", "ready_for_review"] } }, prompt: "Review the pull request.", model: "scripted" }));
    expect(readFileSync(join(dir, "bot/channels/github.ts"), "utf8")).toContain('onPullRequest: (ctx, pr) => (["opened","ready_for_review"].includes(pr.action ?? "") ? { auth: defaultGitHubAuth(ctx) } : null),');
    expect(readFileSync(join(dir, "bot/instructions.md"), "utf8")).toBe("Review the pull request.\n");
    expect(JSON.stringify(info.channels)).toContain("github");
  });

  test("a Slack mention becomes the Slack channel; --dry-run prints and writes nothing", async () => {
    writeFileSync(join(scratch, "helper.yml"), "trigger: {slack: mention}\nprompt: Answer questions about the roadmap.\nmodel: scripted\n");
    const dry = cli();
    expect(await dry.run("convert-automation", "helper.yml", "--dry-run")).toBe(0);
    expect(dry.out()).toContain(`--- ${join(scratch, "helper", "bot/channels/slack.ts")}\n`);
    expect(existsSync(join(scratch, "helper"))).toBe(false);
    const { info } = await convertAndInspect("helper.yml", readFileSync(join(scratch, "helper.yml"), "utf8"));
    expect(JSON.stringify(info.channels)).toContain("slack");
    const again = cli();
    expect(await again.run("convert-automation", "helper.yml")).toBe(1);
    expect(again.err()).toMatch(/helper is not empty: pass --out <new folder>/);
  });

  test("a bad description lists every problem and what to write", async () => {
    writeFileSync(join(scratch, "bad.yaml"), "trigger: {cron: '0 3 * *'}\ntools: [shell, browser]\nwhen: later\n");
    const { run, err } = cli();
    expect(await run("convert-automation", "bad.yaml")).toBe(2);
    expect(err()).toMatch(/bad\.yaml is not a valid automation:/);
    expect(err()).toMatch(/unknown key when/);
    expect(err()).toMatch(/prompt is missing/);
    expect(err()).toMatch(/trigger\.cron must have 5 fields/);
    expect(err()).toMatch(/unknown tools browser \(the harness tools are shell, read/);
  });
});
