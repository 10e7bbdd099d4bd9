/**
 * `agent-serve deployments` lists the worker's deployments as the user's wrangler reports them
 * (`wrangler deployments list --json`), newest first; `agent-serve deployment [id]` shows one,
 * and for the live one its status (docs/guide/cloudflare.md "Deployments and the alias token").
 * @module
 */
import { join, resolve } from "node:path";
import { isRecord } from "./api-client.ts";
import { deploymentStatus } from "./cloudflare/deployment-status.ts";
import { requireDeploymentState } from "./cloudflare/deployment-state.ts";
import type { DeploymentState } from "./cloudflare/deployment-state.ts";
import { INSTALL_HINT, findWrangler, runWrangler } from "./cloudflare/wrangler.ts";
import { CommandError, EXIT_OK } from "./io.ts";
import type { CliIo } from "./io.ts";
import type { DeploymentCommandArgs } from "./rotate-token.ts";
import { table } from "./table.ts";

export interface Deployment {
  id: string;
  createdOn: string;
  source: string;
  author: string;
  /** The worker versions it serves, with their traffic share. */
  versions: Array<{ versionId: string; percentage: number }>;
  /** Whether it is the one serving now (the newest). */
  live: boolean;
}

export async function deploymentsCommand(args: DeploymentCommandArgs, io: CliIo): Promise<number> {
  const { state, deployments } = await listDeployments(args, io);
  if (args.json) {
    io.stdout.write(`${JSON.stringify({ ok: true, worker: state.worker, url: state.url ?? null, deployments })}\n`);
    return EXIT_OK;
  }
  if (deployments.length === 0) {
    io.stdout.write(`wrangler reports no deployments of ${state.worker}\n`);
    return EXIT_OK;
  }
  const rows = deployments.map((d) => [d.live ? `${d.id} (live)` : d.id, d.createdOn, d.source, d.author]);
  io.stdout.write(`${table([["ID", "CREATED", "SOURCE", "AUTHOR"], ...rows]).join("\n")}\n`);
  return EXIT_OK;
}

export interface DeploymentArgs extends DeploymentCommandArgs {
  /** @default the live deployment */
  id?: string;
  /** Sent to `GET /v1/info` so the status can read the agents' diagnostics. */
  bearerToken?: string;
}

export async function deploymentCommand(args: DeploymentArgs, io: CliIo): Promise<number> {
  const { state, deployments } = await listDeployments(args, io);
  const chosen = args.id === undefined ? deployments.find((d) => d.live) : deployments.find((d) => d.id === args.id || d.id.startsWith(args.id!));
  if (!chosen) {
    const known = deployments.map((d) => d.id).join(", ") || "none";
    throw new CommandError(args.id === undefined ? `wrangler reports no deployments of ${state.worker}: run agent-serve deploy` : `no deployment "${args.id}" of ${state.worker} (agent-serve deployments lists them: ${known})`);
  }
  const report = chosen.live ? await deploymentStatus(state, args.bearerToken) : { status: "superseded" as const, reasons: ["an older deployment: the live one replaced it"] };
  if (args.json) {
    io.stdout.write(`${JSON.stringify({ ok: true, worker: state.worker, url: state.url ?? null, deployment: chosen, ...report })}\n`);
    return EXIT_OK;
  }
  const lines = [
    `${state.worker} deployment ${chosen.id}: ${report.status}`,
    `  created ${chosen.createdOn} (${chosen.source}${chosen.author ? `, ${chosen.author}` : ""})`,
    ...(state.url ? [`  url ${state.url}`] : []),
    ...chosen.versions.map((v) => `  version ${v.versionId} (${v.percentage}%)`),
    ...report.reasons.map((reason) => `  - ${reason}`),
  ];
  io.stdout.write(`${lines.join("\n")}\n`);
  return EXIT_OK;
}

// --- internals ---

async function listDeployments(args: DeploymentCommandArgs, io: CliIo): Promise<{ state: DeploymentState; deployments: Deployment[] }> {
  const state = requireDeploymentState(args, io);
  const wrangler = findWrangler(resolve(io.cwd, args.dir ?? "."), io.env);
  if (!wrangler) throw new CommandError(INSTALL_HINT);
  const outDir = state.outDir;
  let printed = "";
  const code = await runWrangler({ wrangler, args: ["deployments", "list", "--json", "--config", join(outDir, "wrangler.jsonc")], cwd: outDir }, { ...io, stdout: { write: (text: string) => void (printed += text) } });
  if (code !== 0) throw new CommandError(`wrangler deployments list exited with code ${code}: check \`wrangler whoami\` and that ${state.worker} is deployed`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(printed);
  } catch {
    throw new CommandError(`wrangler deployments list --json printed no JSON (is your wrangler 3.x or newer?):\n${printed.slice(0, 500)}`);
  }
  const entries = Array.isArray(parsed) ? parsed.filter(isRecord) : [];
  const deployments = entries
    .map((entry): Deployment => ({
      id: String(entry.id ?? ""),
      createdOn: String(entry.created_on ?? ""),
      source: String(entry.source ?? ""),
      author: String(entry.author_email ?? ""),
      versions: (Array.isArray(entry.versions) ? entry.versions.filter(isRecord) : []).map((v) => ({ versionId: String(v.version_id ?? ""), percentage: Number(v.percentage ?? 0) })),
      live: false,
    }))
    .sort((a, b) => b.createdOn.localeCompare(a.createdOn));
  if (deployments[0]) deployments[0].live = true;
  return { state, deployments };
}
