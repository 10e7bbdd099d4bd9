/**
 * `agent-serve build --target cloudflare [dir] --out <dir>`: loads the projects as `serve` does
 * (refusing on error diagnostics), then writes a worker that needs no filesystem: `entry.mjs`
 * (every definition module statically imported, the text files embedded), `worker.mjs` (that
 * entry bundled for workerd) and `wrangler.jsonc` (Durable Objects, migrations, cron triggers).
 * See docs/guide/cloudflare.md "Build".
 * @module
 */
import { mkdir, writeFile } from "node:fs/promises";
import { basename, join, relative, resolve } from "node:path";
import { formatDiagnostic } from "../adapters/_project.ts";
import { discoverProjects, recordProject } from "../adapters/_discovery.ts";
import type { RecordedProject } from "../adapters/_discovery.ts";
import { readPlaygroundSite, renderDocsSite } from "../adapters/_sites.ts";
import type { Diagnostic } from "../src/index.ts";
import { bundleWorker } from "./cloudflare/bundle.ts";
import { cronTriggers } from "./cloudflare/cron-triggers.ts";
import { workerEntry } from "./cloudflare/entry.ts";
import { workersDiagnostics } from "./cloudflare/workers-fit.ts";
import { workerName, wranglerConfig, wranglerJsonc } from "./cloudflare/wrangler-config.ts";
import type { WranglerConfig } from "./cloudflare/wrangler-config.ts";
import { CommandError, EXIT_OK, errorMessage } from "./io.ts";
import type { CliIo } from "./io.ts";
import { createStyle } from "./style.ts";

/** Build targets; Cloudflare Workers is the one there is. */
export const BUILD_TARGETS = ["cloudflare"] as const;

export interface BuildArgs {
  target: (typeof BUILD_TARGETS)[number];
  /** The served directory, relative to `io.cwd`. @default "." */
  dir?: string;
  /** Where the files go, relative to `io.cwd`. @default `<dir>/.agent-serve/cloudflare` */
  out?: string;
  /** @default "multi" */
  mode?: "multi" | "single";
  /** The worker's name on Cloudflare. @default the project's name (single project) or the folder's */
  name?: string;
  /** @default true */
  docs?: boolean;
  /** @default true */
  playground?: boolean;
  /** Set by `deploy`: the worker requires the alias token and obeys `stop` (docs/guide/cloudflare.md). */
  deployment?: { buildId: string };
  json?: boolean;
}

export interface BuildResult {
  ok: true;
  target: "cloudflare";
  outDir: string;
  files: { entry: string; worker: string; config: string };
  bytes: number;
  /** The bundle gzip-compressed, as the Workers size limit counts it. */
  gzipBytes: number;
  projects: Array<{ slug: string; name: string; dir: string }>;
  config: WranglerConfig;
  /** Secrets the projects name (`hosting.secretNames` of the agents and their extensions), sorted. */
  secretNames: string[];
  diagnostics: Array<{ slug: string; diagnostic: Diagnostic }>;
}

export async function buildCommand(args: BuildArgs, io: CliIo): Promise<number> {
  const result = await buildCloudflare(args, io);
  if (args.json) {
    io.stdout.write(`${JSON.stringify(result)}\n`);
    return EXIT_OK;
  }
  const style = createStyle(io.stdout, io.env);
  const paint = { error: style.red, warning: style.yellow, info: style.dim } as const;
  const lines = result.diagnostics.map(({ slug, diagnostic }) => paint[diagnostic.severity](formatDiagnostic(diagnostic, slug)));
  // Relative to where the command ran, unless that climbs out of it.
  const shown = (file: string): string => {
    const path = relative(io.cwd, file) || ".";
    return path.startsWith("..") ? file : path;
  };
  lines.push(
    style.green(`built ${result.projects.map((p) => p.slug).join(", ")} for Cloudflare Workers in ${shown(result.outDir)}`),
    `  ${shown(result.files.worker)}  ${kilobytes(result.bytes)} (${kilobytes(result.gzipBytes)} gzip; Workers allow 3 MB on the Free plan, 10 MB on Paid)`,
    `  ${shown(result.files.config)}  worker ${result.config.name}, crons: ${result.config.triggers.crons.join(", ") || "none"}`,
    `  ${shown(result.files.entry)}`,
    style.dim(`deploy: agent-serve deploy --target cloudflare ${args.out === undefined ? "" : `--out ${shown(result.outDir)} `}${args.dir ?? "."}`),
    style.dim(`secrets: agent-serve secrets set ${["AGENT_SERVE_BEARER_TOKEN", ...result.secretNames].join(" ")} --target cloudflare ${args.out === undefined ? "" : `--out ${shown(result.outDir)} `}${args.dir === undefined ? "" : `--dir ${args.dir}`}`.trimEnd()),
  );
  io.stdout.write(`${lines.join("\n")}\n`);
  return EXIT_OK;
}

/** Builds without printing; throws a `CommandError` when a project has errors or the bundle fails. */
export async function buildCloudflare(args: BuildArgs, io: CliIo): Promise<BuildResult> {
  const dir = resolve(io.cwd, args.dir ?? ".");
  const outDir = resolve(io.cwd, args.out ?? join(dir, ".agent-serve", "cloudflare"));
  const mode = args.mode ?? "multi";
  const recorded = new Map<string, RecordedProject>();
  const discovery = await discoverProjects(dir, {
    mode,
    load: async (projectDir) => {
      const { project, recorded: files } = await recordProject(projectDir);
      recorded.set(projectDir, files);
      return project;
    },
  });
  const diagnostics = [
    ...discovery.diagnostics.map((diagnostic) => ({ slug: "", diagnostic })),
    ...discovery.projects.flatMap(({ slug, project }) => [...project.diagnostics, ...workersDiagnostics(project)].map((diagnostic) => ({ slug, diagnostic }))),
  ];
  const errors = diagnostics.filter(({ diagnostic }) => diagnostic.severity === "error");
  if (errors.length > 0) {
    const listed = errors.map(({ slug, diagnostic }) => `  ${formatDiagnostic(diagnostic, slug)}`).join("\n");
    throw new CommandError(`not building: ${errors.length} error${errors.length === 1 ? "" : "s"} (agent-serve validate shows every diagnostic)\n${listed}`);
  }
  const triggers = cronTriggers(discovery.projects.map(({ slug, project }) => ({ slug, ...(project.schedules ? { schedules: project.schedules } : {}) })));
  diagnostics.push(...triggers.diagnostics.map((diagnostic) => ({ slug: "", diagnostic })));

  await mkdir(outDir, { recursive: true });
  const files = { entry: join(outDir, "entry.mjs"), worker: join(outDir, "worker.mjs"), config: join(outDir, "wrangler.jsonc") };
  const [docs, playground] = await Promise.all([
    args.docs === false ? (false as const) : renderDocsSite(),
    args.playground === false ? (false as const) : readPlaygroundSite(),
  ]);
  const entryProjects = discovery.projects.map(({ slug, dir: projectDir }) => ({ slug, recorded: recorded.get(projectDir)! }));
  await writeFile(files.entry, workerEntry({ mode, projects: entryProjects, outDir, docs, playground, ...(args.deployment ? { deployment: args.deployment } : {}) }));
  let bundle;
  try {
    bundle = await bundleWorker({ entry: files.entry, outfile: files.worker });
  } catch (error) {
    throw new CommandError(`bundling ${files.entry} failed:\n${bundleErrors(error)}`);
  }
  const extraFlags: string[] = [];
  if (bundle.nodeImports.length > 0) {
    extraFlags.push("nodejs_compat");
    const listed = bundle.nodeImports.map(({ module, importer }) => `${module} (from ${importer})`).join(", ");
    diagnostics.push({ slug: "", diagnostic: { severity: "warning", code: "workers_node_imports", message: `the bundle imports Node built-ins, so the worker gets the nodejs_compat flag: ${listed}` } });
  }
  const single = discovery.projects.length === 1 ? discovery.projects[0] : undefined;
  const config = wranglerConfig({
    name: args.name ?? workerName(single ? (single.project.name ?? single.slug) : basename(dir)),
    main: "worker.mjs",
    crons: triggers.crons,
    extraFlags,
  });
  await writeFile(files.config, wranglerJsonc(config));
  return {
    ok: true,
    target: "cloudflare",
    outDir,
    files,
    bytes: bundle.bytes,
    gzipBytes: bundle.gzipBytes,
    projects: discovery.projects.map(({ slug, dir: projectDir, project }) => ({ slug, name: project.name, dir: projectDir })),
    config,
    secretNames: [
      ...new Set(
        discovery.projects.flatMap(({ project }) => [
          ...(project.agent.hosting?.secretNames ?? []),
          ...Object.values(project.extensions ?? {}).flatMap((extension) => extension.secretNames),
        ]),
      ),
    ].sort(),
    diagnostics,
  };
}

// --- internals ---

function kilobytes(bytes: number): string {
  return `${Math.round(bytes / 1024)} KB`;
}

/** esbuild's errors, one per line with where they happened. */
function bundleErrors(error: unknown): string {
  const errors = (error as { errors?: Array<{ text: string; location?: { file: string; line: number; column: number } | null }> }).errors; // SAFETY: esbuild's BuildFailure shape, checked below
  if (!Array.isArray(errors) || errors.length === 0) return `  ${errorMessage(error)}`;
  return errors.map((e) => `  ${e.location ? `${e.location.file}:${e.location.line}:${e.location.column}: ` : ""}${e.text}`).join("\n");
}
