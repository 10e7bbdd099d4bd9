/**
 * What `deploy` remembers of a project's deployment, for the commands that manage or reach it
 * (docs/guide/cloudflare.md "Deployments and the alias token"): the worker, its URL, the alias
 * token, the build id the stop switch names, and whether that build is stopped. Kept beside the
 * build, in `<out>/deployment.json` (by default `<dir>/.agent-serve/cloudflare/`), with mode 0600
 * since it holds the alias token. Each deploy also writes `<dir>/.agent-serve/last-deployment.json`
 * naming that file, so the commands run without `--out` find a deployment built with `--out` too
 * (the last deploy of the project wins).
 * @module
 */
import { randomBytes } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { CommandError, errorMessage } from "../io.ts";
import type { CliIo } from "../io.ts";

export interface DeploymentState {
  /** The worker's name on Cloudflare. */
  worker: string;
  /** The URL wrangler printed for the worker, when it printed one. */
  url?: string;
  aliasToken: string;
  /** The account bridge's pod credential (docs/guide/cloudflare.md "The account bridge and the pod credential"). */
  podCredential?: string;
  /** The id of the deployed build (what `stop` sets the stop switch to). */
  buildId: string;
  /** Set by `stop` to the build it stopped; a deploy clears it. */
  stoppedBuildId?: string;
  mode: "multi" | "single";
  slugs: string[];
  /** The build folder holding `wrangler.jsonc`. */
  outDir: string;
  deployedAt: string;
}

/** Where a deployment's files live: the project directory and `--out`, as `build` resolves them. */
export interface DeploymentPlace {
  /** The project directory, relative to `io.cwd`. @default "." */
  dir?: string;
  /** The build folder. @default `<dir>/.agent-serve/cloudflare` */
  out?: string;
}

/** The build folder of `place`, resolved against `io.cwd` (where `build` and `deploy` write). */
export function buildFolder(place: DeploymentPlace, io: Pick<CliIo, "cwd">): string {
  const dir = resolve(io.cwd, place.dir ?? ".");
  return resolve(io.cwd, place.out ?? join(dir, ".agent-serve", "cloudflare"));
}

/** `<out>/deployment.json` of the build folder `place` names (see {@link buildFolder}). */
export function deploymentStatePath(place: DeploymentPlace, io: Pick<CliIo, "cwd">): string {
  return join(buildFolder(place, io), "deployment.json");
}

/**
 * The `deployment.json` of the project's deployment: with `--out`, that folder's; without it, the
 * one the project's last deploy named (whatever `--out` it used), else the default folder's.
 */
export function deployedStatePath(place: DeploymentPlace, io: Pick<CliIo, "cwd">): string {
  if (place.out !== undefined) return deploymentStatePath(place, io);
  const pointer = lastDeploymentPath(place, io);
  if (existsSync(pointer)) {
    try {
      const named = (JSON.parse(readFileSync(pointer, "utf8")) as { state?: unknown }).state; // SAFETY: written by recordLastDeployment; checked below
      if (typeof named === "string" && existsSync(named)) return named;
    } catch {
      // An unreadable pointer is no deployment of its own: the default folder's is looked at.
    }
  }
  return deploymentStatePath(place, io);
}

/** Records `statePath` as the project's last deployment, for {@link deployedStatePath}. */
export function recordLastDeployment(place: DeploymentPlace, io: Pick<CliIo, "cwd">, statePath: string): void {
  const pointer = lastDeploymentPath(place, io);
  mkdirSync(dirname(pointer), { recursive: true });
  writeFileSync(pointer, `${JSON.stringify({ state: statePath }, null, 2)}\n`);
}

/** The project's deployment as {@link deployedStatePath} finds it, with its file. */
export interface FoundDeployment {
  path: string;
  state: DeploymentState;
}

export function readDeploymentState(path: string): DeploymentState | undefined {
  if (!existsSync(path)) return undefined;
  try {
    return JSON.parse(readFileSync(path, "utf8")) as DeploymentState; // SAFETY: written by writeDeploymentState
  } catch (error) {
    throw new CommandError(`${path} is not readable JSON (${errorMessage(error)}): remove it and run agent-serve deploy again`);
  }
}

/** The project's deployment, or a {@link CommandError} saying to deploy first. */
export function requireDeployment(place: DeploymentPlace, io: Pick<CliIo, "cwd">): FoundDeployment {
  const path = deployedStatePath(place, io);
  const state = readDeploymentState(path);
  const where = `${place.out ? `--out ${place.out} ` : ""}${place.dir ?? "."}`;
  if (!state) throw new CommandError(`no deployment is recorded in ${path}: run agent-serve deploy --target cloudflare ${where} first (or pass the --dir/--out you deployed with)`);
  return { path, state };
}

/** The state of {@link requireDeployment}. */
export function requireDeploymentState(place: DeploymentPlace, io: Pick<CliIo, "cwd">): DeploymentState {
  return requireDeployment(place, io).state;
}

export function writeDeploymentState(path: string, state: DeploymentState): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600 });
  // writeFileSync keeps the mode of a file that already exists.
  chmodSync(path, 0o600);
}

/** A new random secret (alias token or build id): 32 bytes, base64url. */
export function newSecret(bytes = 32): string {
  return randomBytes(bytes).toString("base64url");
}

// --- internals ---

function lastDeploymentPath(place: DeploymentPlace, io: Pick<CliIo, "cwd">): string {
  return join(resolve(io.cwd, place.dir ?? "."), ".agent-serve", "last-deployment.json");
}
