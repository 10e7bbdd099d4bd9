/**
 * Checking the npm registry for a newer `agent-serve`, at most once every 24 hours: the time and
 * outcome of the last check are cached in `<config dir>/update-check.json`.
 * `AGENT_SERVE_REGISTRY_URL` replaces the registry (default https://registry.npmjs.org).
 * @module
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { configDir } from "../adapters/_credentials.ts";
import { CommandError, errorMessage } from "./io.ts";
import { VERSION } from "./version.ts";

export const CHECK_INTERVAL_MS = 24 * 60 * 60 * 1000;
const PACKAGE = "agent-serve";

export interface UpdateStatus {
  current: string;
  latest: string;
  updateAvailable: boolean;
  /** When the registry was last asked (ISO). */
  checkedAt: string;
  /** True when the answer comes from the cache of a check less than 24 h old. */
  cached: boolean;
}

export interface CheckOptions {
  env: Record<string, string | undefined>;
  /** Ask the registry even when the last check is recent. @default false */
  force?: boolean;
  /** @default Date.now() */
  now?: number;
  /** @default 5000 */
  timeoutMs?: number;
}

/** The update status; asks the registry only when the cache is older than 24 h (or `force`). */
export async function checkForUpdate(options: CheckOptions): Promise<UpdateStatus> {
  const now = options.now ?? Date.now();
  const cachePath = join(configDir(options.env), "update-check.json");
  const cache = readCache(cachePath);
  if (!options.force && cache && now - Date.parse(cache.checkedAt) < CHECK_INTERVAL_MS && now >= Date.parse(cache.checkedAt)) {
    // A failed attempt counts too: an offline machine is not asked again for a day.
    if (cache.latest === null) throw new CommandError(`the last update check (${cache.checkedAt}) failed`);
    return status(cache.latest, cache.checkedAt, true);
  }
  const checkedAt = new Date(now).toISOString();
  const registry = (options.env.AGENT_SERVE_REGISTRY_URL?.trim() || "https://registry.npmjs.org").replace(/\/+$/, "");
  let latest: unknown;
  try {
    const response = await fetch(`${registry}/${PACKAGE}/latest`, {
      headers: { accept: "application/json" },
      signal: AbortSignal.timeout(options.timeoutMs ?? 5000),
    });
    if (!response.ok) throw new Error(`answered ${response.status}`);
    latest = ((await response.json()) as { version?: unknown }).version; // SAFETY: read defensively below
  } catch (error) {
    writeCache(cachePath, { checkedAt, latest: null });
    throw new CommandError(`could not check ${registry} for updates: ${errorMessage(error)}`);
  }
  if (typeof latest !== "string") {
    writeCache(cachePath, { checkedAt, latest: null });
    throw new CommandError(`${registry} gave no version for ${PACKAGE}`);
  }
  writeCache(cachePath, { checkedAt, latest });
  return status(latest, checkedAt, false);
}

/** Compares dotted versions numerically; a pre-release sorts before its release. */
export function compareVersions(a: string, b: string): number {
  const [coreA = "", preA] = a.replace(/^v/, "").split("-", 2);
  const [coreB = "", preB] = b.replace(/^v/, "").split("-", 2);
  const partsA = coreA.split(".").map(Number);
  const partsB = coreB.split(".").map(Number);
  for (let i = 0; i < Math.max(partsA.length, partsB.length); i++) {
    const diff = (partsA[i] || 0) - (partsB[i] || 0);
    if (diff !== 0) return Math.sign(diff);
  }
  if (preA === preB) return 0;
  if (preA === undefined) return 1;
  if (preB === undefined) return -1;
  return preA < preB ? -1 : 1;
}

// --- internals ---

function status(latest: string, checkedAt: string, cached: boolean): UpdateStatus {
  return { current: VERSION, latest, updateAvailable: compareVersions(latest, VERSION) > 0, checkedAt, cached };
}

interface Cache {
  checkedAt: string;
  /** Null when that check failed. */
  latest: string | null;
}

function readCache(path: string): Cache | undefined {
  try {
    const value: unknown = JSON.parse(readFileSync(path, "utf8"));
    if (typeof value !== "object" || value === null) return undefined;
    const { checkedAt, latest } = value as Record<string, unknown>; // SAFETY: both checked next
    const valid = typeof checkedAt === "string" && !Number.isNaN(Date.parse(checkedAt)) && (typeof latest === "string" || latest === null);
    return valid ? { checkedAt, latest } : undefined;
  } catch {
    return undefined;
  }
}

function writeCache(path: string, cache: Cache): void {
  try {
    mkdirSync(join(path, ".."), { recursive: true, mode: 0o700 });
    writeFileSync(path, `${JSON.stringify(cache)}\n`);
  } catch {
    // A read-only config dir only means the next run asks again.
  }
}
