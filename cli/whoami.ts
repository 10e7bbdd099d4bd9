/**
 * `agent-serve whoami`: which providers have a stored credential (masked) and which credential
 * environment variables are set, and which of the two a server would use. Never the secret.
 * @module
 */
import { CREDENTIAL_ENV_VARS, credentialsFilePath, readCredentialsFile } from "../adapters/_credentials.ts";
import type { CredentialProvider } from "../adapters/_credentials.ts";
import { EXIT_OK } from "./io.ts";
import type { CliIo } from "./io.ts";
import { maskSecret } from "./secret-input.ts";
import { createStyle } from "./style.ts";
import { table } from "./table.ts";

export function whoamiCommand(args: { json?: boolean }, io: CliIo): number {
  const path = credentialsFilePath(io.env);
  const stored = readCredentialsFile(path);
  // SAFETY: the keys of the provider table.
  const providers = (Object.keys(CREDENTIAL_ENV_VARS) as CredentialProvider[]).map((provider) => {
    const envVar = CREDENTIAL_ENV_VARS[provider];
    const envSet = Boolean(io.env[envVar]?.trim());
    const secret = stored[provider];
    return {
      provider,
      stored: secret !== undefined,
      ...(secret === undefined ? {} : { masked: maskSecret(secret) }),
      envVar,
      envSet,
      // The resolution order of loader/credentials.ts: environment before the stored login.
      uses: envSet ? "env" : secret !== undefined ? "stored" : null,
    };
  });
  if (args.json) {
    io.stdout.write(`${JSON.stringify({ credentialsFile: path, providers })}\n`);
    return EXIT_OK;
  }
  const style = createStyle(io.stdout, io.env);
  const rows = providers.map((p) => [p.provider, p.masked ?? style.dim("—"), `${p.envVar} ${p.envSet ? style.green("set") : style.dim("not set")}`, p.uses ?? style.dim("none")]);
  const lines = [`login file: ${path}`, ...table([["PROVIDER", "STORED", "ENVIRONMENT", "USES"].map(style.bold), ...rows])];
  if (providers.every((p) => p.uses === null)) lines.push("", "no credential: agents without one answer with the offline scripted model (agent-serve login stores one)");
  io.stdout.write(`${lines.join("\n")}\n`);
  return EXIT_OK;
}
