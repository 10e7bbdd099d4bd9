/**
 * `mcp oauth`'s flags as its command's arguments (./mcp-oauth.ts), apart from that file so the
 * parser does not load the command.
 * @module
 */
import { hostOptions, port, positiveInteger } from "./flags.ts";
import type { Flags } from "./flags.ts";
import type { McpOAuthArgs } from "./mcp-oauth.ts";
import { UsageError } from "./io.ts";
import { rawOption } from "./raw-option.ts";

export function mcpOAuthArgs(connection: unknown, flags: Flags, argv: string[]): McpOAuthArgs {
  for (const name of ["url", "prod", "bearer-token", "api-key"]) {
    if (argv.some((arg) => arg === `--${name}` || arg.startsWith(`--${name}=`))) throw new UsageError(`--${name} does not apply to mcp oauth: it works on the project's own store (--dir, --state-root, --storage)`);
  }
  const { dir, mode, stateRoot, storage } = hostOptions(undefined, argv);
  const redirectPort = rawOption(argv, "redirect-port");
  const timeoutMs = rawOption(argv, "timeout-ms");
  return {
    ...(connection === undefined ? {} : { connection: String(connection) }),
    list: flags.list === true,
    revoke: flags.revoke === true,
    ...(dir === undefined ? {} : { dir }),
    ...(mode === undefined ? {} : { mode }),
    ...(stateRoot === undefined ? {} : { stateRoot }),
    ...(storage === undefined ? {} : { storage }),
    ...(rawOption(argv, "slug") === undefined ? {} : { slug: rawOption(argv, "slug") }),
    open: flags.open !== false,
    ...(redirectPort === undefined ? {} : { redirectPort: port(redirectPort) }),
    ...(timeoutMs === undefined ? {} : { timeoutMs: positiveInteger(timeoutMs, "--timeout-ms") }),
    json: flags.json === true,
  };
}
