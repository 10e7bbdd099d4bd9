/**
 * `agent-serve login --provider <name>`: stores a model credential in the login file (mode 0600
 * in the config dir). The key comes from stdin when it is a pipe, else from a hidden prompt; it
 * is never echoed or printed.
 * @module
 */
import { CREDENTIAL_ENV_VARS, credentialsFilePath, readCredentialsFile, writeCredentialsFile } from "../adapters/_credentials.ts";
import type { CredentialProvider } from "../adapters/_credentials.ts";
import { CommandError, EXIT_OK, UsageError } from "./io.ts";
import type { CliIo } from "./io.ts";
import { maskSecret, readSecret } from "./secret-input.ts";

export interface LoginArgs {
  /** @default "openai" */
  provider?: string;
  /** @default false */
  json?: boolean;
}

export async function loginCommand(args: LoginArgs, io: CliIo): Promise<number> {
  const provider = toProvider(args.provider ?? "openai");
  const secret = await readSecret(io, `API key for ${provider} (input hidden): `);
  if (!secret) throw new CommandError("no key given: nothing stored");
  if (/\s/.test(secret)) throw new CommandError("the key contains whitespace: nothing stored (pipe exactly one key)");
  const path = credentialsFilePath(io.env);
  writeCredentialsFile(path, { ...readCredentialsFile(path), [provider]: secret });
  if (args.json) {
    io.stdout.write(`${JSON.stringify({ ok: true, provider, path, masked: maskSecret(secret) })}\n`);
  } else {
    io.stdout.write(`stored the ${provider} credential (${maskSecret(secret)}) in ${path}\n`);
    const envVar = CREDENTIAL_ENV_VARS[provider];
    if (io.env[envVar]?.trim()) io.stdout.write(`note: ${envVar} is set and takes precedence over the stored login\n`);
  }
  return EXIT_OK;
}

export function toProvider(value: string): CredentialProvider {
  if (Object.hasOwn(CREDENTIAL_ENV_VARS, value)) return value as CredentialProvider; // SAFETY: checked against the provider table
  throw new UsageError(`--provider must be one of ${Object.keys(CREDENTIAL_ENV_VARS).join(", ")} (got "${value}")`);
}
