/**
 * `--prod`: a request-sending command reaches the deployed worker (docs/guide/cli.md "Targets"):
 * the URL and alias token `deploy` recorded, and in multi mode the agent's slug (`--slug`, or the
 * one agent deployed).
 * @module
 */
import { ALIAS_TOKEN_HEADER } from "../adapters/cloudflare/deployment-gate.ts";
import { requireDeploymentState } from "./cloudflare/deployment-state.ts";
import type { DeploymentState } from "./cloudflare/deployment-state.ts";
import { CommandError, UsageError } from "./io.ts";
import type { CliIo } from "./io.ts";

export interface ProdTarget {
  /** The agent's base URL on the worker. */
  url: string;
  /** Sent with every request: the alias token. */
  headers: Record<string, string>;
  state: DeploymentState;
}

/** The deployed agent of the project in `dir`; `slug` picks one when several are deployed. */
export function prodTarget(dir: string | undefined, slug: string | undefined, io: Pick<CliIo, "cwd">): ProdTarget {
  const state = requireDeploymentState({ dir }, io);
  if (!state.url) throw new CommandError(`the deployment of ${state.worker} has no recorded URL (wrangler printed none): reach it with --url <worker URL> and the X-Agent-Alias-Token header`);
  const base = state.url.replace(/\/+$/, "");
  const headers = { [ALIAS_TOKEN_HEADER]: state.aliasToken };
  if (state.mode === "single") return { url: base, headers, state };
  const chosen = slug ?? (state.slugs.length === 1 ? state.slugs[0] : undefined);
  if (chosen === undefined) throw new UsageError(`several agents are deployed (${state.slugs.join(", ")}): pass --slug`);
  if (!state.slugs.includes(chosen)) throw new UsageError(`no agent "${chosen}" is deployed (deployed: ${state.slugs.join(", ")})`);
  return { url: `${base}/${chosen}`, headers, state };
}
