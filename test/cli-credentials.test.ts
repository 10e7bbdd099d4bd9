/** `login`, `logout` and `whoami`: the stored login file, masking, and a hidden prompt on a terminal. */
import { spawn, spawnSync } from "node:child_process";
import { existsSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { BIN, REPO } from "./_cli.ts";
import { run, scratchDir } from "./_cli-io.ts";

const { dir: scratch, env } = scratchDir("cli-credentials");
const configDir = env.AGENT_SERVE_CONFIG_DIR ?? "";
const file = join(configDir, "credentials.json");
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const OPENAI = "sk-test-0123456789abcdef";
const ANTHROPIC = "sk-ant-9876543210fedcba";

describe("login, whoami, logout", () => {
  it("login reads the key from stdin, stores it 0600, merges providers, never prints it", async () => {
    const first = await run(["login"], { env, stdin: `${OPENAI}\n` });
    expect(first.code).toBe(0);
    expect(first.stdout).toContain(`stored the openai credential (sk-…cdef) in ${file}`);
    expect(first.stdout + first.stderr).not.toContain(OPENAI);
    expect(statSync(file).mode & 0o777).toBe(0o600);

    const second = await run(["login", "--provider", "anthropic", "--json"], { env, stdin: ANTHROPIC });
    expect(JSON.parse(second.stdout)).toEqual({ ok: true, provider: "anthropic", path: file, masked: "sk-…dcba" });
    expect(JSON.parse(readFileSync(file, "utf8"))).toEqual({ openai: OPENAI, anthropic: ANTHROPIC });
  });

  it("login refuses an empty key and an unknown provider", async () => {
    const empty = await run(["login", "--provider", "openai-compatible"], { env, stdin: "\n" });
    expect(empty.code).toBe(1);
    expect(empty.stderr).toContain("no key given");
    const unknown = await run(["login", "--provider", "mistral"], { env, stdin: "x" });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("--provider must be one of openai, anthropic, openai-compatible, xai");
  });

  it("whoami shows stored credentials masked and which variables are set", async () => {
    const withEnv = { ...env, ANTHROPIC_API_KEY: "env-secret-value-123456" };
    const human = await run(["whoami"], { env: withEnv });
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/^openai\s+sk-…cdef\s+OPENAI_API_KEY not set\s+stored$/m);
    expect(human.stdout).toMatch(/^anthropic\s+sk-…dcba\s+ANTHROPIC_API_KEY set\s+env$/m);
    for (const secret of [OPENAI, ANTHROPIC, "env-secret-value-123456"]) expect(human.stdout).not.toContain(secret);

    const json = await run(["whoami", "--json"], { env: withEnv });
    const body = JSON.parse(json.stdout) as { credentialsFile: string; providers: Array<Record<string, unknown>> };
    expect(body.credentialsFile).toBe(file);
    expect(body.providers).toEqual([
      { provider: "openai", stored: true, masked: "sk-…cdef", envVar: "OPENAI_API_KEY", envSet: false, uses: "stored" },
      { provider: "anthropic", stored: true, masked: "sk-…dcba", envVar: "ANTHROPIC_API_KEY", envSet: true, uses: "env" },
      { provider: "openai-compatible", stored: false, envVar: "AGENT_SERVE_OPENAI_COMPATIBLE_API_KEY", envSet: false, uses: null },
      { provider: "xai", stored: false, envVar: "XAI_API_KEY", envSet: false, uses: null },
    ]);
  });

  it("logout removes only the login file", async () => {
    const other = join(configDir, "update-check.json");
    writeFileSync(other, "{}\n");
    const result = await run(["logout"], { env });
    expect(result).toMatchObject({ code: 0, stdout: `removed ${file}\n` });
    expect(existsSync(file)).toBe(false);
    expect(existsSync(other)).toBe(true);
    const again = await run(["logout", "--json"], { env });
    expect(JSON.parse(again.stdout)).toEqual({ ok: true, removed: false, path: file });
    const nobody = await run(["whoami"], { env });
    expect(nobody.stdout).toContain("no credential: agents without one answer with the offline scripted model");
  });

  it("the spawned CLI reads a piped key", async () => {
    const child = spawn(process.execPath, [BIN, "login", "--provider", "openai-compatible"], { cwd: REPO, env, stdio: ["pipe", "pipe", "pipe"] });
    let out = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (out += chunk));
    child.stdin.end("local-key-0000111122223333\n");
    const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
    expect(code).toBe(0);
    expect(out).not.toContain("local-key-0000111122223333");
    expect(JSON.parse(readFileSync(file, "utf8"))).toEqual({ "openai-compatible": "local-key-0000111122223333" });
  });
});

const hasTmux = spawnSync("tmux", ["-V"]).status === 0;

describe(hasTmux ? "login on a terminal" : "login on a terminal (skipped: tmux is not installed)", () => {
  it.skipIf(!hasTmux)("prompts without echoing the key", async () => {
    const socket = `agent-serve-login-${process.pid}`;
    const tmux = (...args: string[]) => spawnSync("tmux", ["-L", socket, "-f", "/dev/null", ...args], { encoding: "utf8", env, cwd: REPO });
    const screen = (): string => tmux("capture-pane", "-p", "-t", "login").stdout;
    const until = async (pattern: RegExp): Promise<void> => {
      const deadline = Date.now() + 15_000;
      while (!pattern.test(screen())) {
        if (Date.now() > deadline) throw new Error(`no ${pattern} on the screen:\n${screen()}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    };
    const secret = "sk-typed-secret-abcdefgh";
    try {
      tmux("new-session", "-d", "-s", "login", "-x", "120", "-y", "20", `'${process.execPath}' '${BIN}' login; echo "EXIT:$?"; sleep 60`);
      await until(/API key for openai \(input hidden\):/);
      tmux("send-keys", "-t", "login", "-l", `${secret}x`);
      tmux("send-keys", "-t", "login", "BSpace", "Enter");
      await until(/EXIT:0/);
      expect(screen()).not.toContain("sk-typed");
      expect(screen()).toContain("stored the openai credential (sk-…efgh)");
      expect(JSON.parse(readFileSync(file, "utf8"))).toMatchObject({ openai: secret });
    } finally {
      tmux("kill-server");
    }
  });
});
