/**
 * `agent-serve stop`: the deployed worker stops serving until the next `deploy`
 * (docs/guide/cloudflare.md "Deployments and the alias token"): the stop switch secret is set to
 * the deployed build's id, so the worker answers 503 `deployment_stopped` and its cron triggers
 * fire nothing; a new deploy is a new build, which the switch does not name.
 * @module
 */
import { resolve } from "node:path";
import { STOPPED_SECRET } from "../adapters/cloudflare/deployment-gate.ts";
import { putSecret } from "./cloudflare/alias-token.ts";
import { requireDeployment, writeDeploymentState } from "./cloudflare/deployment-state.ts";
import { INSTALL_HINT, findWrangler } from "./cloudflare/wrangler.ts";
import { CommandError, EXIT_OK } from "./io.ts";
import type { CliIo } from "./io.ts";
import type { DeploymentCommandArgs } from "./rotate-token.ts";

export async function stopCommand(args: DeploymentCommandArgs, io: CliIo): Promise<number> {
  const { path, state } = requireDeployment(args, io);
  const wrangler = findWrangler(resolve(io.cwd, args.dir ?? "."), io.env);
  if (!wrangler) throw new CommandError(INSTALL_HINT);
  await putSecret(wrangler, state.outDir, STOPPED_SECRET, state.buildId, { ...io, stdout: args.json ? io.stderr : io.stdout });
  writeDeploymentState(path, { ...state, stoppedBuildId: state.buildId });
  if (args.json) io.stdout.write(`${JSON.stringify({ ok: true, worker: state.worker, stopped: true, buildId: state.buildId })}\n`);
  else io.stdout.write(`stopped ${state.worker}: it answers 503 and fires no schedules until the next agent-serve deploy\n`);
  return EXIT_OK;
}
