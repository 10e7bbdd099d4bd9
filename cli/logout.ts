/**
 * `agent-serve logout`: removes the stored login file, and nothing else (environment variables
 * and other files in the config dir stay).
 * @module
 */
import { credentialsFilePath, removeCredentialsFile } from "../adapters/_credentials.ts";
import { EXIT_OK } from "./io.ts";
import type { CliIo } from "./io.ts";

export function logoutCommand(args: { json?: boolean }, io: CliIo): number {
  const path = credentialsFilePath(io.env);
  const removed = removeCredentialsFile(path);
  if (args.json) io.stdout.write(`${JSON.stringify({ ok: true, removed, path })}\n`);
  else io.stdout.write(removed ? `removed ${path}\n` : `no stored login at ${path}\n`);
  return EXIT_OK;
}
