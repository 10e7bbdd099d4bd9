/**
 * `agent-serve deploy --target cloudflare` and `agent-serve secrets`: they run the user's own
 * wrangler. Here a fake `wrangler` on PATH records its argv, working directory and stdin (the
 * boundary of these tests; wrangler itself is not a dependency).
 */
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { Readable } from "node:stream";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "vitest";
import { deployCommand } from "../cli/deploy.ts";
import { main } from "../cli/main.ts";

const repo = fileURLToPath(new URL("../", import.meta.url));
const FIXTURE = join(repo, "test/fixtures/cloudflare-project");
const scratch = mkdtempSync(join(tmpdir(), "agent-serve-cfdeploy-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const bin = join(scratch, "bin");
const log = join(scratch, "log");
const outDir = join(scratch, "out");
const FAKE_WRANGLER = `#!/bin/sh
# Records each run in $FAKE_WRANGLER_LOG/<n>/: argv (one per line), cwd and stdin (secret put).
n=$(ls "$FAKE_WRANGLER_LOG" | wc -l | tr -d ' ')
dir="$FAKE_WRANGLER_LOG/$n"
mkdir -p "$dir"
printf '%s\\n' "$@" > "$dir/argv"
pwd > "$dir/cwd"
case "$1 $2" in
  "secret put") cat > "$dir/stdin"; echo "Success! Uploaded secret $3" ;;
  "secret list") echo '[{"name":"OPENAI_API_KEY","type":"secret_text"},{"name":"A_TOKEN","type":"secret_text"}]' ;;
  "deploy "*) echo "Uploaded fake worker" ;;
esac
exit \${FAKE_WRANGLER_EXIT:-0}
`;

interface Run {
  argv: string[];
  cwd: string;
  stdin?: string;
}

function runs(): Run[] {
  return readdirSync(log)
    .sort((a, b) => Number(a) - Number(b))
    .map((n) => {
      const dir = join(log, n);
      const stdin = join(dir, "stdin");
      return {
        argv: readFileSync(join(dir, "argv"), "utf8").split("\n").slice(0, -1),
        cwd: readFileSync(join(dir, "cwd"), "utf8").trim(),
        ...(existsSync(stdin) ? { stdin: readFileSync(stdin, "utf8") } : {}),
      };
    });
}

function cli(options: { path?: string; stdin?: string; exit?: number } = {}) {
  let out = "";
  let err = "";
  const io = {
    stdout: { write: (s: string) => (out += s) },
    stderr: { write: (s: string) => (err += s) },
    env: { ...process.env, NO_COLOR: "1", PATH: options.path ?? `${bin}${delimiter}${process.env.PATH ?? ""}`, FAKE_WRANGLER_LOG: log, FAKE_WRANGLER_EXIT: String(options.exit ?? 0) },
    cwd: repo,
    ...(options.stdin === undefined ? {} : { stdin: Readable.from([options.stdin]) as never }),
  };
  return { io, out: () => out, err: () => err, run: (...argv: string[]) => main({ ...io, argv }) };
}

beforeAll(() => {
  mkdirSync(bin);
  writeFileSync(join(bin, "wrangler"), FAKE_WRANGLER);
  chmodSync(join(bin, "wrangler"), 0o755);
});
beforeEach(() => {
  rmSync(log, { recursive: true, force: true });
  mkdirSync(log);
});

describe("deploy --target cloudflare", () => {
  test("--dry-run builds and prints exactly the wrangler command, running nothing", async () => {
    const { run, out } = cli();
    expect(await run("deploy", FIXTURE, "--target", "cloudflare", "--out", outDir, "--no-docs", "--no-playground", "--dry-run")).toBe(0);
    const config = join(outDir, "wrangler.jsonc");
    expect(out()).toContain(`would run: cd ${outDir} && ${join(bin, "wrangler")} deploy --config ${config}\n`);
    expect(existsSync(join(outDir, "worker.mjs"))).toBe(true);
    expect(runs()).toEqual([]);
  });

  test("--dry-run --json says what would run, and whether wrangler was found", async () => {
    const { io, out } = cli({ path: join(scratch, "nowhere") });
    const code = await deployCommand({ target: "cloudflare", dir: FIXTURE, out: outDir, docs: false, playground: false, dryRun: true, json: true }, io);
    expect(code).toBe(0);
    expect(JSON.parse(out())).toEqual({
      ok: true,
      target: "cloudflare",
      outDir,
      worker: "cf-notes",
      command: ["wrangler", "deploy", "--config", join(outDir, "wrangler.jsonc")],
      cwd: outDir,
      dryRun: true,
      wranglerFound: false,
    });
  });

  test("runs wrangler deploy in the build folder and passes its output through, then puts the alias token and the pod credential", async () => {
    const { io, out } = cli();
    const code = await deployCommand({ target: "cloudflare", dir: FIXTURE, out: outDir, docs: false, playground: false }, io);
    expect(code).toBe(0);
    const config = join(outDir, "wrangler.jsonc");
    const [deploy, secret, pod, ...rest] = runs();
    expect(deploy).toEqual({ argv: ["deploy", "--config", config], cwd: outDir });
    // The first deploy makes the alias token (cloudflare-deployments.test.ts runs the worker it guards).
    expect(secret).toEqual({ argv: ["secret", "put", "AGENT_SERVE_ALIAS_TOKEN", "--config", config], cwd: outDir, stdin: expect.stringMatching(/^[\w-]{43}$/) });
    // And the account bridge's pod credential, another secret (not printed).
    expect(pod).toEqual({ argv: ["secret", "put", "AGENT_SERVE_POD_CREDENTIAL", "--config", config], cwd: outDir, stdin: expect.stringMatching(/^[\w-]{43}$/) });
    expect(pod!.stdin).not.toBe(secret!.stdin);
    expect(out()).not.toContain(pod!.stdin);
    expect(rest).toEqual([]);
    expect(out()).toContain("Uploaded fake worker");
    expect(out()).toContain(`alias token (shown this once;`);
    expect(out()).toContain(secret!.stdin);
  });

  test("a failing wrangler fails the deploy", async () => {
    const { io, err } = cli({ exit: 3 });
    const code = await deployCommand({ target: "cloudflare", dir: FIXTURE, out: outDir, docs: false, playground: false }, io);
    expect(code).toBe(1);
    expect(err()).toMatch(/wrangler deploy exited with code 3/);
  });

  test("without wrangler it says how to install it and exits non-zero, before building", async () => {
    const { run, err } = cli({ path: join(scratch, "nowhere") });
    const out = join(scratch, "never");
    expect(await run("deploy", FIXTURE, "--target", "cloudflare", "--out", out)).toBe(1);
    expect(err()).toMatch(/wrangler is not installed: install it with `npm i -g wrangler`.*`npx wrangler`/);
    expect(existsSync(out)).toBe(false);
  });
});

describe("secrets --target cloudflare", () => {
  beforeAll(async () => {
    // The secrets commands work on a built folder (wrangler.jsonc names the worker).
    if (!existsSync(join(outDir, "wrangler.jsonc"))) {
      const { io } = cli();
      await deployCommand({ target: "cloudflare", dir: FIXTURE, out: outDir, docs: false, playground: false, dryRun: true }, io);
    }
  });

  test("set pipes each value from its stdin line to wrangler secret put; only names are printed", async () => {
    const { run, out, err } = cli({ stdin: "sk-live-123456\ntoken with spaces\n" });
    expect(await run("secrets", "set", "OPENAI_API_KEY", "A_TOKEN", "--target", "cloudflare", "--out", outDir)).toBe(0);
    const config = join(outDir, "wrangler.jsonc");
    expect(runs()).toEqual([
      { argv: ["secret", "put", "OPENAI_API_KEY", "--config", config], cwd: outDir, stdin: "sk-live-123456" },
      { argv: ["secret", "put", "A_TOKEN", "--config", config], cwd: outDir, stdin: "token with spaces" },
    ]);
    expect(out()).toContain("set OPENAI_API_KEY, A_TOKEN");
    for (const printed of [out(), err()]) {
      expect(printed).not.toContain("sk-live-123456");
      expect(printed).not.toContain("token with spaces");
    }
  });

  test("NAME=VALUE is refused unless --from-argv; then the value goes to stdin, not argv", async () => {
    const refused = cli();
    expect(await refused.run("secrets", "set", "A_TOKEN=abc", "--target", "cloudflare", "--out", outDir)).toBe(2);
    expect(refused.err()).toMatch(/A_TOKEN=… puts a secret on the command line/);
    expect(refused.err()).not.toContain("abc");
    expect(runs()).toEqual([]);
    const accepted = cli();
    expect(await accepted.run("secrets", "set", "A_TOKEN=abc", "--from-argv", "--target", "cloudflare", "--out", outDir)).toBe(0);
    expect(runs()).toEqual([{ argv: ["secret", "put", "A_TOKEN", "--config", join(outDir, "wrangler.jsonc")], cwd: outDir, stdin: "abc" }]);
  });

  test("bad names, a line count that does not match and an empty value change nothing", async () => {
    const lower = cli({ stdin: "x\n" });
    expect(await lower.run("secrets", "set", "lower_case", "--target", "cloudflare", "--out", outDir)).toBe(2);
    expect(lower.err()).toMatch(/must be UPPER_SNAKE_CASE/);
    const short = cli({ stdin: "only-one\n" });
    expect(await short.run("secrets", "set", "A_TOKEN", "B_TOKEN", "--target", "cloudflare", "--out", outDir)).toBe(2);
    expect(short.err()).toMatch(/stdin has 1 line for 2 secrets/);
    const empty = cli({ stdin: "\n" });
    expect(await empty.run("secrets", "set", "A_TOKEN", "--target", "cloudflare", "--out", outDir)).toBe(2);
    expect(empty.err()).toMatch(/the value of A_TOKEN is empty/);
    expect(runs()).toEqual([]);
  });

  test("list prints the names wrangler reports, sorted; --dry-run prints names only", async () => {
    const list = cli();
    expect(await list.run("secrets", "list", "--target", "cloudflare", "--out", outDir, "--json")).toBe(0);
    expect(JSON.parse(list.out())).toEqual({ ok: true, names: ["A_TOKEN", "OPENAI_API_KEY"] });
    expect(runs()[0]?.argv).toEqual(["secret", "list", "--config", join(outDir, "wrangler.jsonc"), "--format", "json"]);
    const dry = cli({ stdin: "never-read\n" });
    expect(await dry.run("secrets", "set", "A_TOKEN", "--dry-run", "--target", "cloudflare", "--out", outDir)).toBe(0);
    expect(dry.out()).toContain(`${join(bin, "wrangler")} secret put A_TOKEN --config ${join(outDir, "wrangler.jsonc")}`);
    expect(runs()).toHaveLength(1);
  });

  test("without a build there is nothing to set secrets on", async () => {
    const { run, err } = cli({ stdin: "x\n" });
    expect(await run("secrets", "set", "A_TOKEN", "--target", "cloudflare", "--out", join(scratch, "none"))).toBe(1);
    expect(err()).toMatch(/wrangler\.jsonc does not exist: build the worker first/);
  });
});
