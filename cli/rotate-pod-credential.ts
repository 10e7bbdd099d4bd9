/**
 * `agent-serve rotate-pod-credential`: a new pod credential for the deployed worker's account
 * bridge (docs/guide/cloudflare.md "The account bridge and the pod credential"). The worker
 * secret is replaced through the user's wrangler, so the old credential is refused as soon as
 * wrangler returns; the new one is printed once and recorded beside the alias token.
 * @module
 */
import { resolve } from "node:path";
import { putPodCredential } from "./cloudflare/alias-token.ts";
import { requireDeployment, writeDeploymentState } from "./cloudflare/deployment-state.ts";
import { INSTALL_HINT, findWrangler } from "./cloudflare/wrangler.ts";
import { CommandError, EXIT_OK } from "./io.ts";
import type { CliIo } from "./io.ts";
import type { DeploymentCommandArgs } from "./rotate-token.ts";

export async function rotatePodCredentialCommand(args: DeploymentCommandArgs, io: CliIo): Promise<number> {
  const { path, state } = requireDeployment(args, io);
  const wrangler = findWrangler(resolve(io.cwd, args.dir ?? "."), io.env);
  if (!wrangler) throw new CommandError(INSTALL_HINT);
  const podCredential = await putPodCredential(wrangler, state.outDir, { ...io, stdout: args.json ? io.stderr : io.stdout });
  writeDeploymentState(path, { ...state, podCredential });
  if (args.json) io.stdout.write(`${JSON.stringify({ ok: true, worker: state.worker, podCredential, state: path })}\n`);
  else io.stdout.write(`new pod credential for ${state.worker}'s account bridge (shown this once; the old one is refused from now on; kept in ${path}):\n  ${podCredential}\n`);
  return EXIT_OK;
}
