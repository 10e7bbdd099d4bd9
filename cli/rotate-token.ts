/**
 * `agent-serve rotate-token`: a new alias token for the deployed worker (docs/guide/cloudflare.md
 * "Deployments and the alias token"). The worker secret is replaced through the user's wrangler,
 * so the old token stops working as soon as wrangler returns; the new one is printed once and
 * recorded for the `--prod` commands.
 * @module
 */
import { putAliasToken } from "./cloudflare/alias-token.ts";
import { requireDeployment, writeDeploymentState } from "./cloudflare/deployment-state.ts";
import type { DeploymentPlace } from "./cloudflare/deployment-state.ts";
import { INSTALL_HINT, findWrangler } from "./cloudflare/wrangler.ts";
import { CommandError, EXIT_OK } from "./io.ts";
import type { CliIo } from "./io.ts";
import { resolve } from "node:path";

export interface DeploymentCommandArgs extends DeploymentPlace {
  json?: boolean;
}

export async function rotateTokenCommand(args: DeploymentCommandArgs, io: CliIo): Promise<number> {
  const { path, state } = requireDeployment(args, io);
  const wrangler = findWrangler(resolve(io.cwd, args.dir ?? "."), io.env);
  if (!wrangler) throw new CommandError(INSTALL_HINT);
  const passthrough = { ...io, stdout: args.json ? io.stderr : io.stdout };
  const aliasToken = await putAliasToken(wrangler, state.outDir, passthrough);
  writeDeploymentState(path, { ...state, aliasToken });
  if (args.json) io.stdout.write(`${JSON.stringify({ ok: true, worker: state.worker, aliasToken, state: path })}\n`);
  else io.stdout.write(`new alias token for ${state.worker} (shown this once; the old one no longer works; --prod commands read it from ${path}):\n  ${aliasToken}\n`);
  return EXIT_OK;
}
