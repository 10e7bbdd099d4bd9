/**
 * `agent-serve update`: asks the registry now whether a newer `agent-serve` exists and says how
 * to install it. (The passive notice after interactive commands is {@link maybeNotifyUpdate}.)
 * @module
 */
import { EXIT_OK } from "./io.ts";
import type { CliIo } from "./io.ts";
import { createProgress } from "./progress.ts";
import { createStyle } from "./style.ts";
import { checkForUpdate } from "./update-check.ts";

export async function updateCommand(args: { json?: boolean }, io: CliIo): Promise<number> {
  const progress = createProgress(io, { quiet: args.json });
  progress.start("checking the registry for a newer agent-serve");
  let status;
  try {
    status = await checkForUpdate({ env: io.env, force: true });
  } finally {
    progress.stop();
  }
  if (args.json) {
    io.stdout.write(`${JSON.stringify(status)}\n`);
    return EXIT_OK;
  }
  const style = createStyle(io.stdout, io.env);
  io.stdout.write(
    status.updateAvailable
      ? `${style.yellow(`agent-serve ${status.latest} is available`)} (this is ${status.current})\n  npm install agent-serve@latest   (or npm install -g agent-serve@latest)\n`
      : `agent-serve ${status.current} is the latest version\n`,
  );
  return EXIT_OK;
}

/**
 * The passive notice after interactive commands: at most one registry request per 24 h, only on
 * a terminal, never under CI or with `--json`, silent on any failure.
 */
export async function maybeNotifyUpdate(io: CliIo, options: { json?: boolean }): Promise<void> {
  if (options.json || io.env.CI || io.stderr.isTTY !== true) return;
  try {
    const status = await checkForUpdate({ env: io.env, timeoutMs: 1500 });
    if (status.updateAvailable) {
      const style = createStyle(io.stderr, io.env);
      io.stderr.write(style.yellow(`agent-serve ${status.latest} is available (this is ${status.current}): run agent-serve update\n`));
    }
  } catch {
    // A notice is never worth a failure.
  }
}
