/**
 * `agent-serve validate [dir]`: loads the projects exactly as `serve` does and prints every
 * diagnostic. Exits 1 on any error-severity diagnostic (the ones that stop `serve`), else 0.
 * @module
 */
import { resolve } from "node:path";
import { resolveCredentials } from "../adapters/_credentials.ts";
import { discoverProjects } from "../adapters/_discovery.ts";
import {
  describeChannels,
  effectiveModel,
  hasUnsandboxedShell,
  missingModelSetup,
  normalizeModelSpec,
  routeModelId,
  SCRIPTED_FALLBACK_CODE,
  UNSANDBOXED_SHELL_CODE,
  UNSANDBOXED_SHELL_MESSAGE,
} from "../src/entries/inspect.ts";
import type { Diagnostic, ProjectDefinition } from "../src/index.ts";
import { EXIT_FAILURE, EXIT_OK } from "./io.ts";
import type { CliIo } from "./io.ts";
import { formatDiagnostic } from "./start-host.ts";
import { createStyle } from "./style.ts";

export interface ValidateArgs {
  /** @default "." */
  dir?: string;
  /** Slugs are only checked in multi mode. @default "multi" */
  mode?: "multi" | "single";
  json?: boolean;
}

export async function validateCommand(args: ValidateArgs, io: CliIo): Promise<number> {
  const discovery = await discoverProjects(resolve(io.cwd, args.dir ?? "."), { mode: args.mode ?? "multi" });
  for (const { project } of discovery.projects) project.diagnostics.push(...modelSetupDiagnostics(project, io.env));
  const all: Array<{ slug: string; diagnostic: Diagnostic }> = [
    ...discovery.diagnostics.map((diagnostic) => ({ slug: "", diagnostic })),
    ...discovery.projects.flatMap(({ slug, project }) => withSafety(project).map((diagnostic) => ({ slug, diagnostic }))),
  ];
  const errors = all.filter(({ diagnostic }) => diagnostic.severity === "error").length;
  const warnings = all.filter(({ diagnostic }) => diagnostic.severity === "warning").length;
  const code = errors > 0 ? EXIT_FAILURE : EXIT_OK;
  if (args.json) {
    const report = {
      ok: errors === 0,
      errors,
      warnings,
      projects: discovery.projects.map(({ slug, dir, project }) => ({
        slug,
        dir,
        name: project.name,
        channels: describeChannels(project.channels, args.mode === "single" ? "" : `/${slug}`),
        diagnostics: withSafety(project),
      })),
      diagnostics: discovery.diagnostics,
    };
    io.stdout.write(`${JSON.stringify(report)}\n`);
    return code;
  }
  const style = createStyle(io.stdout, io.env);
  const paint = { error: style.red, warning: style.yellow, info: style.dim } as const;
  const lines = all.map(({ slug, diagnostic }) => paint[diagnostic.severity](formatDiagnostic(diagnostic, slug)));
  for (const { slug, project } of discovery.projects) {
    // The mounted channels and their routes, so a check also shows what `serve` would expose.
    for (const channel of describeChannels(project.channels, args.mode === "single" ? "" : `/${slug}`)) {
      lines.push(style.dim(`${slug}: channel ${channel.id}: ${channel.routes.map((route) => `${route.method} ${route.path}`).join(", ") || "no routes"}`));
    }
  }
  const projects = discovery.projects.length;
  const summary = `${projects} project${projects === 1 ? "" : "s"}, ${errors} error${errors === 1 ? "" : "s"}, ${warnings} warning${warnings === 1 ? "" : "s"}`;
  lines.push(errors > 0 ? style.red(`invalid: ${summary}`) : style.green(`ok: ${summary}`));
  io.stdout.write(`${lines.join("\n")}\n`);
  return code;
}

// --- internals ---

/** The project's diagnostics plus the safety warnings `serve` prints at start-up too. */
function withSafety(project: ProjectDefinition): Diagnostic[] {
  if (!hasUnsandboxedShell(project)) return project.diagnostics;
  return [...project.diagnostics, { severity: "warning", code: UNSANDBOXED_SHELL_CODE, message: UNSANDBOXED_SHELL_MESSAGE }];
}

/**
 * A model written with its provider whose credential or base URL is missing: `serve` starts, but
 * every turn would fail, so `validate` says so now (as a warning: the variable may be set later).
 * A bare id without its provider's credential (`grok-4.5` without `XAI_API_KEY`) runs on the
 * scripted model instead: the same notice `serve` prints, from the same function. Ids no provider
 * claims are left to the loader's `unknown_model` warning.
 */
function modelSetupDiagnostics(project: ProjectDefinition, env: CliIo["env"]): Diagnostic[] {
  const spec = normalizeModelSpec(typeof project.agent.model === "string" || isModelObject(project.agent.model) ? project.agent.model : undefined);
  if (!spec) return [];
  const provider = routeModelId(spec.id)?.provider;
  if (!provider) return [];
  const options = { credentials: resolveCredentials({ env, provider }), openaiCompatibleBaseURL: env.AGENT_SERVE_OPENAI_BASE_URL || undefined };
  const problem = missingModelSetup(spec, options);
  if (problem) return [{ severity: "warning", code: "missing_model_credential", message: problem, file: "bot/agent.ts" }];
  const { notice } = effectiveModel(spec, options);
  return notice ? [{ severity: "warning", code: SCRIPTED_FALLBACK_CODE, message: notice, file: "bot/agent.ts" }] : [];
}

function isModelObject(value: unknown): value is { id: string } {
  return typeof value === "object" && value !== null && typeof (value as { id?: unknown }).id === "string";
}
