/**
 * Running `main` in-process with captured stdio, and the small projects CLI tests serve.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { PassThrough } from "node:stream";
import { afterAll, expect } from "vitest";
import { main } from "../cli/main.ts";
import { REPO, cliEnv } from "./_cli.ts";

export interface Captured {
  stdout(): string;
  stderr(): string;
  /** Feeds a line (newline added) to the command's stdin. */
  type(line: string): void;
  /** Ends stdin (Ctrl-D). */
  end(): void;
  /** Resolves once stdout matches `pattern` (or rejects after `timeoutMs`, or when the command exits first). */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  exited: Promise<number>;
}

export interface RunOptions {
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** Text on stdin; the stream stays open when omitted (use `type`/`end`). */
  stdin?: string;
  /** Pretend stdout and stderr are terminals. @default false */
  tty?: boolean;
  signal?: AbortSignal;
}

/** Scratch dirs made by this test file, removed after its tests (its own hooks run first). */
const scratch: string[] = [];
afterAll(() => {
  for (const dir of scratch.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A scratch dir with a config dir without stored login; removed after the test file. */
export function scratchDir(prefix: string): { dir: string; env: NodeJS.ProcessEnv } {
  const dir = mkdtempSync(join(tmpdir(), `agent-serve-${prefix}-`));
  scratch.push(dir);
  // Never ask the real registry from tests.
  return { dir, env: cliEnv(join(dir, "config"), { AGENT_SERVE_REGISTRY_URL: "http://127.0.0.1:9" }) };
}

/** Starts `main` with `argv`; the result lets a test type into it and watch its output. */
export function start(argv: string[], options: RunOptions): Captured {
  let out = "";
  let err = "";
  const stdin = new PassThrough();
  if (options.stdin !== undefined) stdin.end(options.stdin);
  const listeners = new Set<() => void>();
  const notify = (): void => {
    for (const listener of listeners) listener();
  };
  const exited = main({
    argv,
    stdout: { write: (chunk: string) => ((out += chunk), notify()), isTTY: options.tty === true },
    stderr: { write: (chunk: string) => ((err += chunk), notify()), isTTY: options.tty === true },
    stdin,
    env: options.env ?? {},
    cwd: options.cwd ?? REPO,
    signal: options.signal,
  });
  let done = false;
  void exited.finally(() => {
    done = true;
    notify();
  });
  return {
    stdout: () => out,
    stderr: () => err,
    type: (line) => stdin.write(`${line}\n`),
    end: () => stdin.end(),
    exited,
    waitFor(pattern, timeoutMs = 10_000) {
      return new Promise((resolve, reject) => {
        const check = (): void => {
          const match = pattern.exec(out);
          if (match) finish(() => resolve(match));
          else if (done) finish(() => reject(new Error(`exited without ${pattern}\nstdout: ${out}\nstderr: ${err}`)));
        };
        const timer = setTimeout(() => finish(() => reject(new Error(`no ${pattern} within ${timeoutMs} ms\nstdout: ${out}\nstderr: ${err}`))), timeoutMs);
        const finish = (settle: () => void): void => {
          clearTimeout(timer);
          listeners.delete(check);
          settle();
        };
        listeners.add(check);
        check();
      });
    },
  };
}

/** Runs `main` to completion. */
export async function run(argv: string[], options: RunOptions): Promise<{ code: number; stdout: string; stderr: string }> {
  const proc = start(argv, options);
  const code = await proc.exited;
  return { code, stdout: proc.stdout(), stderr: proc.stderr() };
}

/** Writes `files` under `dir` and returns `dir`. */
export function writeFiles(dir: string, files: Record<string, string>): string {
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, file)), { recursive: true });
    writeFileSync(join(dir, file), text);
  }
  return dir;
}

/** An agent project with server tools: `add` (valibot schema), `danger` (needs approval), `boom` (throws). */
export function toolsProject(dir: string): string {
  return writeFiles(dir, {
    "package.json": JSON.stringify({ name: "toolbox", type: "module" }),
    "bot/instructions.md": "You use tools.\n",
    "bot/agent.ts": `import { defineAgent } from "agent-serve";\nexport default defineAgent({ name: "Toolbox" });\n`,
    "bot/tools/add.ts": [
      `import { defineTool } from "agent-serve/tools";`,
      `import * as v from "valibot";`,
      `export default defineTool({`,
      `  description: "Adds two numbers",`,
      `  inputSchema: v.object({ a: v.number(), b: v.number() }),`,
      `  execute: async ({ a, b }) => ({ sum: a + b }),`,
      `});`,
    ].join("\n"),
    "bot/tools/danger.ts": `export default { description: "Deletes things", needsApproval: true, execute: () => "deleted" };\n`,
    "bot/tools/boom.ts": `export default { description: "Always fails", execute: () => { throw new Error("kaboom"); } };\n`,
  });
}

export interface CapturedCli {
  out(): string;
  err(): string;
  /** Runs `main` with `argv`; answers its exit code. */
  run(...argv: string[]): Promise<number>;
}

/** `main` in-process with `env` and `cwd`, what it prints kept. */
export function captureCli(env: NodeJS.ProcessEnv, cwd: string): CapturedCli {
  let out = "";
  let err = "";
  const io = {
    stdout: { write: (s: string) => (out += s) },
    stderr: { write: (s: string) => (err += s) },
    env,
    cwd,
  };
  return { out: () => out, err: () => err, run: (...argv: string[]) => main({ ...io, argv }) };
}

/** Runs `argv` with `--json` and answers what it printed; an exit code but 0 fails the test, showing the output. */
export async function cliJson(cli: CapturedCli, ...argv: string[]): Promise<Record<string, unknown>> {
  const code = await cli.run(...argv, "--json");
  expect(code, `${cli.out()}${cli.err()}`).toBe(0);
  return JSON.parse(cli.out()) as Record<string, unknown>;
}
