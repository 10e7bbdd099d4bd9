/**
 * The agent URL a channel helper builds on (docs/guide/cli.md "Channel helpers"): `--url`
 * (the agent's base URL, with the slug in multi mode), else the last deployment of `--dir`, whose
 * webhook URLs carry the alias token as a query parameter (docs/guide/cloudflare.md "Deployments
 * and the alias token").
 * @module
 */
import { ALIAS_TOKEN_PARAM } from "../../adapters/cloudflare/deployment-gate.ts";
import { deployedStatePath, readDeploymentState } from "../cloudflare/deployment-state.ts";
import { UsageError } from "../io.ts";
import type { CliIo } from "../io.ts";
import { prodTarget } from "../prod-target.ts";

export interface AgentUrlArgs {
  url?: string;
  dir?: string;
  slug?: string;
}

/** `<agent base>/v1/channels/<channel><path>`, with the alias token's parameter for a deployment. */
export function channelUrl(args: AgentUrlArgs, channel: string, path: string, io: Pick<CliIo, "cwd">): string {
  if (args.url !== undefined) {
    let base: URL;
    try {
      base = new URL(args.url);
    } catch {
      throw new UsageError(`--url must be an absolute http(s) URL (got "${args.url}")`);
    }
    return `${base.href.replace(/\/+$/, "")}/v1/channels/${channel}${path}`;
  }
  if (!readDeploymentState(deployedStatePath({ dir: args.dir }, io))) {
    throw new UsageError("pass --url <agent URL> (with the slug in multi mode), or deploy first (agent-serve deploy --target cloudflare) to use the deployment's URL");
  }
  const prod = prodTarget(args.dir, args.slug, io);
  return `${prod.url}/v1/channels/${channel}${path}?${ALIAS_TOKEN_PARAM}=${encodeURIComponent(prod.state.aliasToken)}`;
}
