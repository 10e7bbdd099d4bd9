/**
 * `agent-serve deploy --target cloudflare [dir]`: builds (as `build`), then runs the user's own
 * `wrangler deploy` on the generated `wrangler.jsonc`. `--dry-run` builds and prints the exact
 * command instead of running it. Without wrangler it says how to install it and fails. See
 * docs/guide/cloudflare.md "Deploy".
 * @module
 */
import { resolve } from "node:path";
import { formatDiagnostic } from "../adapters/_project.ts";
import { buildCloudflare } from "./build.ts";
import type { BuildArgs } from "./build.ts";
import { INSTALL_HINT, findWrangler, runWrangler } from "./cloudflare/wrangler.ts";
import { CommandError, EXIT_FAILURE, EXIT_OK } from "./io.ts";
import type { CliIo } from "./io.ts";
import { shellQuote } from "./shell-quote.ts";

export interface DeployArgs extends BuildArgs {
  /** Build and print the command, run nothing. */
  dryRun?: boolean;
}

export async function deployCommand(args: DeployArgs, io: CliIo): Promise<number> {
  // Before building: without wrangler there is nothing to deploy with (a dry run needs none).
  const wrangler = findWrangler(resolve(io.cwd, args.dir ?? "."), io.env);
  if (!wrangler && !args.dryRun) throw new CommandError(INSTALL_HINT);
  const built = await buildCloudflare(args, io);
  const argv = ["deploy", "--config", built.files.config];
  const shown = `cd ${shellQuote(built.outDir)} && ${shellQuote(wrangler ?? "wrangler")} ${argv.map(shellQuote).join(" ")}`;
  // With --json the result is the only thing on stdout; wrangler's own output goes to stderr.
  const out = args.json ? io.stderr : io.stdout;
  for (const { slug, diagnostic } of built.diagnostics) {
    if (diagnostic.severity !== "info") io.stderr.write(`${formatDiagnostic(diagnostic, slug)}\n`);
  }
  const report = (extra: Record<string, unknown>): void => {
    if (args.json) io.stdout.write(`${JSON.stringify({ ok: true, target: "cloudflare", outDir: built.outDir, worker: built.config.name, command: [wrangler ?? "wrangler", ...argv], cwd: built.outDir, ...extra })}\n`);
  };
  if (args.dryRun) {
    if (args.json) report({ dryRun: true, wranglerFound: wrangler !== undefined });
    else {
      out.write(`built ${built.files.worker}\nwould run: ${shown}\n`);
      if (!wrangler) out.write(`(${INSTALL_HINT})\n`);
    }
    return EXIT_OK;
  }
  if (!wrangler) throw new CommandError(INSTALL_HINT);
  if (!args.json) out.write(`built ${built.files.worker}\nrunning: ${shown}\n`);
  const code = await runWrangler({ wrangler, args: argv, cwd: built.outDir }, { ...io, stdout: out });
  if (code !== 0) {
    io.stderr.write(`agent-serve: wrangler deploy exited with code ${code}\n`);
    return EXIT_FAILURE;
  }
  report({ deployed: true });
  return EXIT_OK;
}
