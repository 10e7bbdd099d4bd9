/**
 * A cloud session's `env`/`envVars` (docs/design/cloud-runtime.md "Workspaces and secrets"),
 * given to the turn's shell commands and agent-tool scripts only: an `export` prefix on the script
 * the runtime runs, below the events, so the values never reach the log.
 * @module
 */
import type { RuntimePort } from "../../base/ports/runtime.ts";
import type { CloudBlock } from "./protocol.ts";

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** The session's variables: `env`, then `envVars` (values, or names read from `own`). */
export function sessionEnv(cloud: CloudBlock, own: Record<string, string | undefined>): { env: Record<string, string>; problems: string[] } {
  const env: Record<string, string> = {};
  const problems: string[] = [];
  const put = (name: string, value: unknown): void => {
    if (!NAME.test(name)) problems.push(`not an environment variable name: ${JSON.stringify(name)}`);
    else if (typeof value !== "string") problems.push(`${name}: the value must be a string`);
    else env[name] = value;
  };
  for (const [name, value] of Object.entries(cloud.env ?? {})) put(name, value);
  const vars = cloud.envVars;
  if (Array.isArray(vars)) {
    for (const name of vars) {
      const value = own[name];
      if (value === undefined) problems.push(`envVars names ${name}, which is not set on the runner`);
      else put(name, value);
    }
  } else {
    for (const [name, value] of Object.entries(vars ?? {})) put(name, value);
  }
  return { env, problems };
}

/** The runtime with every script and shell command run under `env`. */
export function withSessionEnv(runtime: RuntimePort, env: Record<string, string>): RuntimePort {
  const names = Object.keys(env);
  if (names.length === 0) return runtime;
  const prefix = `export ${names.map((name) => `${name}=${quote(env[name]!)}`).join(" ")}\n`;
  const bound: RuntimePort = { ...runtime };
  const { runScript, harness } = runtime;
  if (runScript) bound.runScript = (script, options) => runScript.call(runtime, prefix + script, options);
  if (harness) {
    bound.harness = {
      execute: (name, input, context) =>
        name === "shell"
          ? harness.execute("shell", { ...(input as { command: string }), command: prefix + (input as { command: string }).command }, context)
          : harness.execute(name, input, context),
    };
  }
  return bound;
}

function quote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}
