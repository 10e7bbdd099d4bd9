/**
 * Helpers for the Cloudflare build tests: the generated `wrangler.jsonc` read back, and the
 * Miniflare options it stands for (the bundle as a module worker, the Durable Object bindings as
 * SQLite-backed classes, the compatibility date and flags), as `wrangler dev` would set them up.
 * The worker gets `main` alone, as wrangler uploads it with no_bundle: code the bundle does not
 * hold fails here as it would on Cloudflare, and Miniflare does not parse the 6 MB bundle looking
 * for imports (that parse took seconds of each start).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { MiniflareOptions } from "miniflare";
import type { WranglerConfig } from "../cli/cloudflare/wrangler-config.ts";

/** `<outDir>/wrangler.jsonc`, its comment lines left out. */
export function readWranglerConfig(outDir: string): WranglerConfig {
  const text = readFileSync(join(outDir, "wrangler.jsonc"), "utf8");
  return JSON.parse(text.split("\n").filter((line) => !line.trimStart().startsWith("//")).join("\n")) as WranglerConfig; // SAFETY: written by wranglerJsonc
}

/** Miniflare options for the built worker; `persist` keeps Durable Object storage in that folder. */
export function miniflareOptions(outDir: string, persist?: string): MiniflareOptions {
  const config = readWranglerConfig(outDir);
  const sqlite = new Set(config.migrations.flatMap((migration) => migration.new_sqlite_classes));
  return {
    modules: [{ type: "ESModule", path: join(outDir, config.main) }],
    // Module names are paths below this root; the default (the working directory) may not hold the bundle.
    modulesRoot: outDir,
    compatibilityDate: config.compatibility_date,
    compatibilityFlags: config.compatibility_flags,
    durableObjects: Object.fromEntries(
      config.durable_objects.bindings.map((binding) => [binding.name, { className: binding.class_name, useSQLite: sqlite.has(binding.class_name) }]),
    ),
    ...(persist ? { durableObjectsPersist: persist } : {}),
  };
}
