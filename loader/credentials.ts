/**
 * Model credentials for the CLI and the Node adapter (docs/guide/cli.md "Credentials"): explicit
 * `--api-key`, then the provider's environment variable, then the stored login file.
 * @module
 */
import { chmodSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import type { ModelCredentials } from "../src/base/ports/model.ts";

export type CredentialProvider = keyof ModelCredentials;
export type Env = Record<string, string | undefined>;

/** The environment variable read for each provider. */
export const CREDENTIAL_ENV_VARS: Readonly<Record<CredentialProvider, string>> = {
  openai: "OPENAI_API_KEY",
  anthropic: "ANTHROPIC_API_KEY",
  "openai-compatible": "AGENT_SERVE_OPENAI_COMPATIBLE_API_KEY",
  xai: "XAI_API_KEY",
};

// SAFETY: the keys of a record typed by CredentialProvider.
const PROVIDERS = Object.keys(CREDENTIAL_ENV_VARS) as CredentialProvider[];

export interface ResolveCredentialsOptions {
  /** The `--api-key` value. */
  apiKey?: string;
  /** Which provider `apiKey` is for. @default "openai" */
  provider?: CredentialProvider;
  env: Env;
  /** Directory of `credentials.json`. @default see {@link configDir} */
  configDir?: string;
}

/**
 * Resolves each provider's credential, first match wins: `apiKey` (for `provider`), the
 * provider's environment variable, the stored login file. Empty values count as absent.
 * @example
 * const credentials = resolveCredentials({ apiKey: flags.apiKey, env: process.env });
 */
export function resolveCredentials(options: ResolveCredentialsOptions): ModelCredentials {
  const stored = readCredentialsFile(join(options.configDir ?? configDir(options.env), "credentials.json"));
  const explicitFor = options.provider ?? "openai";
  const credentials: ModelCredentials = {};
  for (const provider of PROVIDERS) {
    const explicit = provider === explicitFor ? options.apiKey : undefined;
    const value = nonEmpty(explicit) ?? nonEmpty(options.env[CREDENTIAL_ENV_VARS[provider]]) ?? nonEmpty(stored[provider]);
    if (value) credentials[provider] = value;
  }
  return credentials;
}

/**
 * The config directory: `$AGENT_SERVE_CONFIG_DIR`, else `$XDG_CONFIG_HOME/agent-serve`, else
 * `~/.config/agent-serve`.
 */
export function configDir(env: Env): string {
  const explicit = nonEmpty(env.AGENT_SERVE_CONFIG_DIR);
  if (explicit) return explicit;
  const xdg = nonEmpty(env.XDG_CONFIG_HOME);
  return join(xdg ?? join(nonEmpty(env.HOME) ?? homedir(), ".config"), "agent-serve");
}

/** Path of the stored login file (`agent-serve login` writes it, `logout` removes it). */
export function credentialsFilePath(env: Env): string {
  return join(configDir(env), "credentials.json");
}

/** Reads the stored login file; a missing or unreadable file holds no credentials. */
export function readCredentialsFile(path: string): ModelCredentials {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, "utf8"));
  } catch {
    return {};
  }
  if (typeof parsed !== "object" || parsed === null) return {};
  const credentials: ModelCredentials = {};
  for (const provider of PROVIDERS) {
    // SAFETY: a non-null object; each member is checked before use.
    const value: unknown = (parsed as Record<string, unknown>)[provider];
    if (typeof value === "string" && value) credentials[provider] = value;
  }
  return credentials;
}

/** Writes the stored login file, readable by the owner only (mode 0600). */
export function writeCredentialsFile(path: string, credentials: ModelCredentials): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  writeFileSync(path, `${JSON.stringify(credentials, null, 2)}\n`, { mode: 0o600 });
  // `mode` applies only when the file is created; tighten a file that already existed.
  chmodSync(path, 0o600);
}

/** Removes the stored login file; `true` when there was one. */
export function removeCredentialsFile(path: string): boolean {
  try {
    rmSync(path);
    return true;
  } catch (error) {
    if (error instanceof Error && "code" in error && error.code === "ENOENT") return false;
    throw error;
  }
}

// --- internals ---

function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
}
