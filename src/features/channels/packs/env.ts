/**
 * Environment defaults of the channel packs. The core takes no runtime module, so the variables
 * are read from `process.env` where the runtime provides one (Node, Bun, Deno, Workers with
 * `nodejs_compat`), at the moment a value is needed rather than when the channel file loads.
 * @module
 */

/** The variable's value, or `undefined` when it is unset or empty. */
export function readEnv(name: string): string | undefined {
  const env = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env;
  const value = env?.[name];
  return value === undefined || value === "" ? undefined : value;
}
