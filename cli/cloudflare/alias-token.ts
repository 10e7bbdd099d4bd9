/**
 * Setting a deployment's alias token (docs/guide/cloudflare.md "Deployments and the alias
 * token"): a new random token, put as the worker secret through the user's wrangler (the value
 * on its stdin, never on a command line), then recorded for the `--prod` commands.
 * @module
 */
import { join } from "node:path";
import { POD_CREDENTIAL_SECRET } from "../../adapters/cloudflare/account-bridge.ts";
import { ALIAS_TOKEN_SECRET } from "../../adapters/cloudflare/deployment-gate.ts";
import { CommandError } from "../io.ts";
import type { CliIo } from "../io.ts";
import { newSecret } from "./deployment-state.ts";
import { runWrangler } from "./wrangler.ts";

/** Puts a new pod credential (the account bridge's secret) on the worker built in `outDir`; resolves with it. */
export async function putPodCredential(wrangler: string, outDir: string, io: CliIo): Promise<string> {
  const credential = newSecret();
  await putSecret(wrangler, outDir, POD_CREDENTIAL_SECRET, credential, io);
  return credential;
}

/** Puts a new alias token on the worker built in `outDir`; resolves with it. */
export async function putAliasToken(wrangler: string, outDir: string, io: CliIo): Promise<string> {
  const token = newSecret();
  await putSecret(wrangler, outDir, ALIAS_TOKEN_SECRET, token, io);
  return token;
}

/** `wrangler secret put <name>` on the worker built in `outDir`, the value on stdin. */
export async function putSecret(wrangler: string, outDir: string, name: string, value: string, io: CliIo): Promise<void> {
  const code = await runWrangler({ wrangler, args: ["secret", "put", name, "--config", join(outDir, "wrangler.jsonc")], cwd: outDir, input: value }, io);
  if (code !== 0) throw new CommandError(`wrangler secret put ${name} exited with code ${code}: check \`wrangler whoami\` and try again`);
}
