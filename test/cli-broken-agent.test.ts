/**
 * A folder of several agents where one is broken: the broken one is reported and left
 * out, the healthy ones serve; `--strict` refuses the start instead.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { main } from "../cli/main.ts";
import { writeFiles } from "./_cli-io.ts";

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function folder(): string {
  const dir = mkdtempSync(join(tmpdir(), "agent-serve-broken-"));
  dirs.push(dir);
  writeFiles(dir, {
    "good/bot/instructions.md": "You are fine.\n",
    "bad/bot/instructions.md": "You are broken.\n",
    "bad/bot/agent.ts": "export default { model: ;\n",
  });
  return dir;
}

function capture() {
  let out = "";
  let err = "";
  let resolveUrl: (url: string) => void = () => {};
  const url = new Promise<string>((resolve) => (resolveUrl = resolve));
  return {
    io: {
      stdout: { write: (s: string) => { out += s; const match = /listening on (\S+)/.exec(out); if (match) resolveUrl(match[1]!); } },
      stderr: { write: (s: string) => (err += s) },
      env: {},
      cwd: process.cwd(),
    },
    url,
    out: () => out,
    err: () => err,
  };
}

describe("a folder with one broken agent", () => {
  it("serves the healthy agents and reports the broken one", async () => {
    const dir = folder();
    const stdio = capture();
    const stop = new AbortController();
    const done = main({ argv: ["serve", dir, "--port", "0", "--no-docs", "--state-root", join(dir, ".state")], ...stdio.io, signal: stop.signal });
    const url = await Promise.race([stdio.url, done.then((code) => Promise.reject(new Error(`exited with ${code}: ${stdio.err()}`)))]);
    expect((await fetch(`${url}/good/v1/health`)).status).toBe(200);
    expect((await fetch(`${url}/bad/v1/health`)).status).toBe(404);
    expect(stdio.err()).toMatch(/error \[\w+\] bad: bot\/agent\.ts/);
    expect(stdio.err()).toContain("agent-serve: not serving bad: 1 error (above); the other agents serve (--strict refuses instead)");
    expect(stdio.out()).toMatch(/ {2}bad {3}not served: 1 error\n/);
    stop.abort();
    expect(await done).toBe(0);
  });

  it("refuses to start under --strict", async () => {
    const dir = folder();
    const stdio = capture();
    expect(await main({ argv: ["serve", dir, "--port", "0", "--strict", "--state-root", join(dir, ".state")], ...stdio.io })).toBe(1);
    expect(stdio.err()).toContain("agent-serve: not starting: 1 error in the project");
  });
});
