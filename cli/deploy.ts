/**
 * `agent-serve deploy --target cloudflare [dir]`: builds (as `build`), then runs the user's own
 * `wrangler deploy` on the generated `wrangler.jsonc`. `--dry-run` builds and prints the exact
 * command instead of running it. Without wrangler it says how to install it and fails. The
 * deployed worker requires the alias token; the first deploy makes one, puts it as a worker
 * secret and prints it once, and every deploy records the worker's URL and build id for the
 * commands that manage or reach it. See docs/guide/cloudflare.md "Deploy" and "Deployments and
 * the alias token".
 * @module
 */
import { resolve } from "node:path";
import { formatDiagnostic } from "../adapters/_project.ts";
import { buildCloudflare } from "./build.ts";
import type { BuildArgs } from "./build.ts";
import { putAliasToken, putPodCredential } from "./cloudflare/alias-token.ts";
import { deploymentStatePath, newSecret, readDeploymentState, recordLastDeployment, writeDeploymentState } from "./cloudflare/deployment-state.ts";
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
  const statePath = deploymentStatePath(args, io);
  const previous = readDeploymentState(statePath);
  const buildId = newSecret(12);
  const built = await buildCloudflare({ ...args, deployment: { buildId } }, io);
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
  let printed = "";
  const capture = { write: (text: string) => ((printed += text), out.write(text)) };
  const code = await runWrangler({ wrangler, args: argv, cwd: built.outDir }, { ...io, stdout: capture });
  if (code !== 0) {
    io.stderr.write(`agent-serve: wrangler deploy exited with code ${code}\n`);
    return EXIT_FAILURE;
  }
  // The worker answers 503 until its token is set (fail closed); a token survives redeploys.
  const reuse = previous !== undefined && previous.worker === built.config.name;
  const aliasToken = reuse ? previous.aliasToken : await putAliasToken(wrangler, built.outDir, { ...io, stdout: out });
  // The account bridge's credential, made once like the token (a deployment from before it gets one now).
  const podCredential = reuse && previous.podCredential ? previous.podCredential : await putPodCredential(wrangler, built.outDir, { ...io, stdout: out });
  const url = workerUrl(printed) ?? (reuse ? previous.url : undefined);
  writeDeploymentState(statePath, {
    worker: built.config.name,
    ...(url ? { url } : {}),
    aliasToken,
    podCredential,
    buildId,
    mode: args.mode ?? "multi",
    slugs: built.projects.map((p) => p.slug),
    outDir: built.outDir,
    deployedAt: new Date().toISOString(),
  });
  recordLastDeployment(args, io, statePath);
  const fresh = !reuse;
  const freshPod = podCredential !== previous?.podCredential;
  if (args.json) report({ deployed: true, url: url ?? null, buildId, ...(fresh ? { aliasToken } : {}), ...(freshPod ? { podCredential } : {}), state: statePath });
  else {
    out.write(`deployed ${built.config.name}${url ? ` at ${url}` : " (wrangler printed no URL: --prod needs one, see docs/guide/cloudflare.md)"}\n`);
    if (fresh) {
      out.write(`alias token (shown this once; every request needs it as X-Agent-Alias-Token, and --prod commands send it from ${statePath}):\n  ${aliasToken}\n`);
    }
    if (freshPod) out.write(`the account bridge's pod credential is kept in ${statePath} (agent-serve rotate-pod-credential replaces it)\n`);
  }
  return EXIT_OK;
}

// --- internals ---

/** The last http(s) URL wrangler printed (it ends its deploy output with the worker's URL). */
function workerUrl(printed: string): string | undefined {
  const urls = printed.match(/https?:\/\/[^\s"'<>]+/g);
  return urls?.at(-1)?.replace(/[.,;)]+$/, "");
}
