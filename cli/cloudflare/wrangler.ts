/**
 * The user's own `wrangler`, which deploys and sets secrets (docs/guide/cloudflare.md "Deploy"):
 * agent-serve does not depend on it. Found in the project's `node_modules/.bin`, else on PATH;
 * run with the built folder as its working directory.
 * @module
 */
import { spawn } from "node:child_process";
import { accessSync, constants } from "node:fs";
import { delimiter, join } from "node:path";
import { CommandError } from "../io.ts";
import type { CliIo } from "../io.ts";

export const INSTALL_HINT = "wrangler is not installed: install it with `npm i -g wrangler` (or in the project: `npm i -D wrangler`), or run it yourself with `npx wrangler` in the build folder";

/** The wrangler executable: `<dir>/node_modules/.bin/wrangler`, else the first on PATH; undefined when there is none. */
export function findWrangler(projectDir: string, env: CliIo["env"]): string | undefined {
  const folders = [join(projectDir, "node_modules", ".bin"), ...(env.PATH ?? "").split(delimiter).filter(Boolean)];
  const names = process.platform === "win32" ? ["wrangler.cmd", "wrangler.exe", "wrangler"] : ["wrangler"];
  for (const folder of folders) {
    for (const name of names) {
      const file = join(folder, name);
      try {
        accessSync(file, constants.X_OK);
        return file;
      } catch {
        // not here; keep looking
      }
    }
  }
  return undefined;
}

export interface WranglerRun {
  /** The executable. */
  wrangler: string;
  args: string[];
  cwd: string;
  /** Written to wrangler's stdin, which is then closed (a secret's value); otherwise stdin is the terminal's. */
  input?: string;
}

/**
 * Runs wrangler, passing its output through to `io` line for line; resolves with its exit code.
 * The secret given as `input` never reaches `io`: wrangler only prints names.
 */
export function runWrangler(run: WranglerRun, io: CliIo): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(run.wrangler, run.args, {
      cwd: run.cwd,
      env: io.env as NodeJS.ProcessEnv,
      stdio: [run.input === undefined ? "inherit" : "pipe", "pipe", "pipe"],
    });
    child.stdout?.on("data", (chunk: Buffer) => io.stdout.write(chunk.toString("utf8")));
    child.stderr?.on("data", (chunk: Buffer) => io.stderr.write(chunk.toString("utf8")));
    child.on("error", (error) => reject(new CommandError(`cannot run ${run.wrangler}: ${error.message}`)));
    child.on("close", (code, signal) => resolve(code ?? (signal ? 128 : 1)));
    if (run.input !== undefined) child.stdin?.end(run.input);
  });
}
