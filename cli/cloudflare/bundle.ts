/**
 * Bundles the generated worker entry into one ES module for workerd (docs/guide/cloudflare.md
 * "Build"): esbuild with the neutral platform and the worker conditions, `agent-serve` (and the
 * Agent SDK's module names) resolved to this package as the Node loader does, host dependencies a
 * project lacks taken from this package, and the bundle's `node:*` imports reported from the
 * metafile.
 *
 * One file, not split at the dynamic imports: workerd compiles every module a worker uploads when
 * it starts, imported or not, and code esbuild inlines behind a dynamic `import()` is only
 * pre-parsed and never evaluated until imported, so chunks would not shorten the start-up
 * (measured: docs/design/cloudflare-build.md "Start-up CPU").
 * @module
 */
import { readFileSync } from "node:fs";
import { gzipSync } from "node:zlib";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import type { BuildOptions, Metafile, Plugin } from "esbuild";
import { FROM_SOURCE, SOURCE_CONDITION, packageFile } from "../../adapters/_package.ts";

export interface BundleOptions {
  entry: string;
  outfile: string;
}

export interface BundleResult {
  /** Bytes written. */
  bytes: number;
  /** Bytes gzip-compressed: what the Workers size limit counts. */
  gzipBytes: number;
  /** `node:*` modules the bundle imports, each with one module that imports it. */
  nodeImports: Array<{ module: string; importer: string }>;
  metafile: Metafile;
}

export async function bundleWorker(options: BundleOptions): Promise<BundleResult> {
  const result = await build({ ...workerBuildOptions(options.entry), outfile: options.outfile, metafile: true });
  const output = Object.values(result.metafile.outputs)[0];
  const nodeImports = new Map<string, string>();
  for (const [importer, input] of Object.entries(result.metafile.inputs)) {
    for (const imported of input.imports) {
      if (imported.external && imported.path.startsWith("node:") && !nodeImports.has(imported.path)) nodeImports.set(imported.path, importer);
    }
  }
  return {
    bytes: output?.bytes ?? 0,
    gzipBytes: gzipSync(readFileSync(options.outfile)).byteLength,
    nodeImports: [...nodeImports].map(([module, importer]) => ({ module, importer })).sort((a, b) => a.module.localeCompare(b.module)),
    metafile: result.metafile,
  };
}

/** esbuild's options for the worker bundle of `entry`, without where it goes (the start-up benchmark builds variants from them). */
export function workerBuildOptions(entry: string): BuildOptions & { format: "esm" } {
  return {
    entryPoints: [entry],
    bundle: true,
    format: "esm",
    platform: "neutral",
    mainFields: ["module", "main"],
    conditions: ["workerd", "worker", "browser"],
    resolveExtensions: [".ts", ".mts", ".js", ".mjs", ".json"],
    // workerd provides these; a `node:*` import needs the nodejs_compat flag (bundleWorker reports them).
    external: ["cloudflare:*", "node:*"],
    plugins: [selfPlugin()],
    logLevel: "silent",
    legalComments: "none",
  };
}

// --- internals ---

const SELF = "agent-serve";
const SELF_SPECIFIER = /^(agent-serve|@cursor\/bdk|@grok\/agent-sdk)(\/.*)?$/;
const HOST_DEPS = /^(valibot|zod|@valibot\/to-json-schema)(\/.*)?$/;

function selfPlugin(): Plugin {
  const root = fileURLToPath(packageFile(""));
  return {
    name: "agent-serve",
    setup(pluginBuild) {
      pluginBuild.onResolve({ filter: SELF_SPECIFIER }, (args) => {
        const subpath = `.${args.path.replace(SELF_SPECIFIER, "$2")}`;
        const path = exportedFile(subpath);
        if (path === undefined) {
          const alias = args.path.startsWith(SELF) ? "" : ` (imported as "${args.path}")`;
          return { errors: [{ text: `agent-serve has no module "${subpath}"${alias}` }] };
        }
        return { path };
      });
      // A project may use the host's validators without installing them, as under the Node loader.
      pluginBuild.onResolve({ filter: HOST_DEPS }, async (args) => {
        if (args.pluginData === "host-dep") return undefined;
        const own = await pluginBuild.resolve(args.path, { kind: args.kind, resolveDir: args.resolveDir, pluginData: "host-dep" });
        if (own.errors.length === 0) return own;
        return pluginBuild.resolve(args.path, { kind: args.kind, resolveDir: root, pluginData: "host-dep" });
      });
    },
  };
}

type ExportTarget = string | Record<string, string>;

/** The file this package exports as `subpath`: its sources from a checkout, else the compiled module. */
function exportedFile(subpath: string): string | undefined {
  const manifest = JSON.parse(readFileSync(packageFile("package.json"), "utf8")) as { exports?: Record<string, ExportTarget> }; // SAFETY: our own manifest
  const target = manifest.exports?.[subpath];
  if (target === undefined) return undefined;
  const file = typeof target === "string" ? target : FROM_SOURCE ? (target[SOURCE_CONDITION] ?? target.import) : target.import;
  return file === undefined ? undefined : fileURLToPath(packageFile(file));
}
