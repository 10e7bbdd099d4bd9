/**
 * `serve` and unconfined `shell` (docs/design/faults.md): a warning whenever an agent's model may
 * run shell commands without `local.sandbox`, and a refusal to expose that beyond loopback (a
 * non-loopback `--host` or `--allow-anonymous`) unless `--accept-unsandboxed-shell` is passed.
 */
import { expect, test } from "vitest";
import { cliEnv, finished, killAfterEach, runCli, spawnCli, waitForOutput } from "./_cli.ts";
import type { CliProcess } from "./_cli.ts";
import { tempProjects } from "./_temp-projects.ts";

const write = tempProjects("shell-exposure");
const running: CliProcess[] = killAfterEach();
const WARNING = /warning \[unsandboxed_shell\] \S+: shell is allowed without local\.sandbox/;

function env(dir: string): NodeJS.ProcessEnv {
  return cliEnv(`${dir}/.config`);
}

async function serves(args: string[], dir: string): Promise<CliProcess> {
  const proc = spawnCli(["serve", dir, "--port", "0", "--state-root", `${dir}/.state`, ...args], env(dir));
  running.push(proc);
  await waitForOutput(proc, /agent-serve listening on/);
  return proc;
}

test("a default project: warned on loopback, refused on a public bind or with --allow-anonymous", async () => {
  const dir = write({ "bot/agent.ts": `export default { model: "scripted" };\n` });
  const local = await serves([], dir);
  expect(local.stderr()).toMatch(WARNING);
  local.child.kill("SIGTERM");
  await finished(local);

  for (const flags of [["--host", "0.0.0.0"], ["--allow-anonymous"]]) {
    const refused = await runCli(["serve", dir, "--port", "0", "--state-root", `${dir}/.state`, ...flags], env(dir));
    expect(refused.code, flags.join(" ")).toBe(1);
    expect(refused.stderr).toMatch(WARNING);
    expect(refused.stderr).toMatch(/not starting: .* unsandboxed shell commands; .*--accept-unsandboxed-shell/);
    expect(refused.stdout).not.toContain("listening");
  }

  const accepted = await serves(["--allow-anonymous", "--accept-unsandboxed-shell"], dir);
  expect(accepted.stderr()).toMatch(WARNING);
  accepted.child.kill("SIGTERM");
  await finished(accepted);
}, 60_000);

test("no warning and no refusal with local.sandbox or without shell in tools", async () => {
  for (const config of [`{ model: "scripted", local: { sandbox: true } }`, `{ model: "scripted", tools: ["read", "ls"] }`]) {
    const dir = write({ "bot/agent.ts": `export default ${config};\n` });
    const proc = await serves(["--allow-anonymous"], dir);
    expect(proc.stderr(), config).not.toMatch(WARNING);
    proc.child.kill("SIGTERM");
    await finished(proc);
  }
}, 60_000);

test("the examples start quietly (issue 35): hello leaves shell out of its tools, workspace keeps it under the sandbox", async () => {
  const home = write({});
  const harness = async (example: string): Promise<unknown> => {
    const result = await runCli(["info", example, "--json"], env(home));
    return (JSON.parse(result.stdout) as { projects: Array<{ harness: unknown }> }).projects[0]!.harness;
  };
  expect(await harness("examples/hello")).toMatchObject({ tools: ["read", "grep", "glob", "ls"] });
  expect(await harness("examples/workspace")).toMatchObject({ tools: ["shell", "read", "edit", "grep", "glob", "ls"], sandbox: true });
  for (const example of ["examples/hello", "examples/workspace"]) {
    const result = await runCli(["validate", example], env(home));
    expect(result.code, example).toBe(0);
    expect(result.stdout, example).not.toMatch(/unsandboxed_shell/);
  }
});

test("validate reports the same warning", async () => {
  const dir = write({ "bot/agent.ts": `export default { model: "scripted" };\n` });
  const result = await runCli(["validate", dir], env(dir));
  expect(result.code).toBe(0);
  expect(result.stdout).toMatch(WARNING);
  expect(result.stdout).toContain("0 errors, 1 warning");
});
