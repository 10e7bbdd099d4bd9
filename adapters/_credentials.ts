/**
 * Model credentials on Node, for the CLI (`login`, `logout`, `whoami`, `info`, `validate`): the
 * environment first, then the credentials file (docs/guide/cli.md, "login"). The loader holds the
 * implementation; the CLI reaches it here, as it reaches the core only through the package's
 * public entries. Not a public entry.
 * @module
 */
export {
  CREDENTIAL_ENV_VARS,
  configDir,
  credentialsFilePath,
  readCredentialsFile,
  removeCredentialsFile,
  resolveCredentials,
  writeCredentialsFile,
} from "../loader/credentials.ts";
export type { CredentialProvider } from "../loader/credentials.ts";
