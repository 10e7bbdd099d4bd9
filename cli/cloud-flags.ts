/**
 * `serve`'s cloud-runtime options (docs/guide/cloud-runtime.md): the runners (`--runner`,
 * repeatable or comma-separated, else `AGENT_SERVE_RUNNERS`), the shared secret
 * (`--runner-secret`, else `AGENT_SERVE_RUNNER_SECRET`), and where runners reach this host's
 * server tools (`--public-url`, `--cloud-tools-url`).
 * @module
 */
import { UsageError } from "./io.ts";
import { rawOption, rawOptionValues } from "./raw-option.ts";
import type { StartHostOptions } from "./start-host.ts";

export function cloudArgs(argv: readonly string[], env: Record<string, string | undefined>): Pick<StartHostOptions, "cloud"> {
  const listed = rawOptionValues(argv, "runner");
  const runners = (listed.length > 0 ? listed : [env.AGENT_SERVE_RUNNERS ?? ""]).flatMap((value) => value.split(",")).map((url) => url.trim()).filter(Boolean);
  const secret = rawOption(argv, "runner-secret") ?? env.AGENT_SERVE_RUNNER_SECRET;
  const publicUrl = rawOption(argv, "public-url");
  const toolsUrl = rawOption(argv, "cloud-tools-url");
  for (const [flag, url] of [...runners.map((url) => ["--runner", url] as const), ["--public-url", publicUrl] as const, ["--cloud-tools-url", toolsUrl] as const]) {
    if (url !== undefined && !isHttpUrl(url)) throw new UsageError(`${flag} must be an http(s) URL (got "${url}")`);
  }
  if (runners.length === 0) {
    if (publicUrl !== undefined || toolsUrl !== undefined) return { cloud: { runners: [], secret: "", ...urls(publicUrl, toolsUrl) } };
    return {};
  }
  if (!secret) throw new UsageError("--runner needs the secret the runners were started with: --runner-secret <secret> or AGENT_SERVE_RUNNER_SECRET");
  // Security: local turns' shell commands inherit the environment; the secret must not reach them.
  if (env === process.env) delete process.env.AGENT_SERVE_RUNNER_SECRET;
  return { cloud: { runners, secret, ...urls(publicUrl, toolsUrl) } };
}

/** The string options named in `names` (field → flag) that were given, read raw from argv. */
export function optionalStrings<K extends string>(argv: readonly string[], names: Record<K, string>): Partial<Record<K, string>> {
  const out: Partial<Record<K, string>> = {};
  for (const [field, flag] of Object.entries(names) as Array<[K, string]>) {
    const value = rawOption(argv, flag);
    if (argv.includes(`--${flag}`) && value === undefined) throw new UsageError(`--${flag} needs a value`);
    if (value !== undefined) out[field] = value;
  }
  return out;
}

function urls(publicUrl: string | undefined, toolsUrl: string | undefined): { publicUrl?: string; toolsUrl?: string } {
  return { ...(publicUrl === undefined ? {} : { publicUrl: publicUrl.replace(/\/+$/, "") }), ...(toolsUrl === undefined ? {} : { toolsUrl }) };
}

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === "http:" || url.protocol === "https:";
  } catch {
    return false;
  }
}
