/**
 * `agent-serve info [dir]`: the discovered project surface without starting a server, as the
 * same project-info object `GET /v1/info` serves (model, tools with schemas, hooks, artifacts,
 * schedules, A/B experiments, routes, diagnostics), one per project.
 * @module
 */
import { resolve } from "node:path";
import { resolveCredentials } from "../adapters/_credentials.ts";
import { discoverProjects } from "../adapters/_discovery.ts";
import { defaultModelId, effectiveModel, inspectProject, normalizeModelSpec, routeModelId } from "../src/entries/inspect.ts";
import type { ChannelInfo, ModelSpec, ProjectInfo } from "../src/entries/inspect.ts";
import type { Diagnostic, ProjectDefinition } from "../src/index.ts";
import { EXIT_FAILURE, EXIT_OK } from "./io.ts";
import type { CliIo } from "./io.ts";
import { formatDiagnostic } from "./start-host.ts";
import { createStyle } from "./style.ts";
import type { Style } from "./style.ts";
import { table } from "./table.ts";

export interface InfoArgs {
  /** @default "." */
  dir?: string;
  /** @default "multi" */
  mode?: "multi" | "single";
  /** Decides only whether the model notice says the scripted model would be used. */
  apiKey?: string;
  json?: boolean;
}

export interface InfoReport {
  projects: Array<ProjectInfo & { dir: string }>;
  /** Problems with the directory as a whole (no project found, too many for single mode). */
  diagnostics: Diagnostic[];
}

/** Exits 1 only when no project could be read at all; a project's own errors are shown, not fatal. */
export async function infoCommand(args: InfoArgs, io: CliIo): Promise<number> {
  const mode = args.mode ?? "multi";
  const discovery = await discoverProjects(resolve(io.cwd, args.dir ?? "."), { mode });
  const report: InfoReport = {
    projects: discovery.projects.map(({ slug, dir, project }) => ({
      ...inspectProject({ slug, project, basePath: mode === "multi" ? `/${slug}` : "", model: modelOf(project, args.apiKey, io.env) }),
      dir,
    })),
    diagnostics: discovery.diagnostics,
  };
  const code = report.projects.length === 0 ? EXIT_FAILURE : EXIT_OK;
  if (args.json) {
    io.stdout.write(`${JSON.stringify(report)}\n`);
    return code;
  }
  const style = createStyle(io.stdout, io.env);
  const lines = report.diagnostics.map((diagnostic) => style.red(formatDiagnostic(diagnostic, "")));
  for (const info of report.projects) lines.push(...describe(info, style), "");
  io.stdout.write(`${lines.join("\n").trimEnd()}\n`);
  return code;
}

// --- internals ---

/** Custom channels: every entry of `channels` but the built-in HTTP channel's route list. */
function customChannels(info: ProjectInfo): ChannelInfo[] {
  return info.channels.filter((channel): channel is ChannelInfo => "events" in channel);
}

/** One line per route (`POST /v1/channels/x/y  body {a, b?}  description`), then the subscribed events. */
function describeChannel(channel: ChannelInfo, style: Style): string[] {
  const auth = channel.auth === "authored" ? style.dim(" [own auth]") : "";
  const lines = [`${style.bold(channel.id)}${auth}${channel.events.length ? `  events: ${channel.events.join(", ")}` : ""}`];
  for (const route of channel.routes) {
    const schemas = [route.querySchema ? `query ${schemaShape(route.querySchema)}` : "", route.bodySchema ? `body ${schemaShape(route.bodySchema)}` : ""];
    lines.push(`  ${route.method} ${route.path}${schemas.filter(Boolean).map((text) => `  ${style.dim(text)}`).join("")}${route.description ? `  ${route.description}` : ""}`);
  }
  return lines;
}

/** `{a, b?}` for an object schema (optional members marked), else its type or `any`. */
function schemaShape(schema: Record<string, unknown>): string {
  const properties = schema.properties;
  if (schema.type !== "object" || typeof properties !== "object" || properties === null) return typeof schema.type === "string" ? schema.type : "any";
  const required = new Set(Array.isArray(schema.required) ? schema.required : []);
  return `{${Object.keys(properties).map((name) => (required.has(name) ? name : `${name}?`)).join(", ")}}`;
}

/** The model a served host would use: the configured one, else the credential-based default. */
function modelOf(project: ProjectDefinition, apiKey: string | undefined, env: CliIo["env"]): { spec: ModelSpec; notice?: string } {
  const configured = normalizeModelSpec(project.agent.model);
  // `--api-key` belongs to the configured model's provider, else counts as an OpenAI key, as for `serve`.
  const provider = configured ? routeModelId(configured.id)?.provider : undefined;
  const credentials = resolveCredentials({ apiKey, env, ...(provider ? { provider } : {}) });
  if (configured) return effectiveModel(configured, { credentials, openaiCompatibleBaseURL: env.AGENT_SERVE_OPENAI_BASE_URL || undefined });
  const fallback = defaultModelId(credentials);
  return { spec: { id: fallback.id, params: {} }, ...(fallback.notice ? { notice: fallback.notice } : {}) };
}

function describe(info: ProjectInfo & { dir: string }, style: Style): string[] {
  const rows: string[][] = [];
  const section = (label: string, values: string[]): void => {
    values.forEach((value, i) => rows.push([i === 0 ? style.bold(label) : "", value]));
  };
  const params = Object.entries(info.model.params).map(([id, value]) => `${id}=${value}`);
  section("model", [`${info.model.id}${params.length ? ` (${params.join(", ")})` : ""}`]);
  if (info.description) section("description", [info.description]);
  section(
    "tools",
    info.tools.length
      ? info.tools.map((tool) => `${tool.name}  ${tool.description}${tool.execution === "agent" ? " [agent]" : ""}${tool.needsApproval ? " [approval]" : ""}${tool.effect ? ` [${tool.effect}${tool.dryRun ? ", dry-run in evals" : ""}]` : ""}`)
      : [style.dim("none")],
  );
  const channels = customChannels(info);
  if (channels.length) section("channels", channels.flatMap((channel) => describeChannel(channel, style)));
  if (info.hooks.length) section("hooks", [info.hooks.join(", ")]);
  if (info.artifacts) {
    const kinds = info.artifacts.kinds.map((kind) => kind.name);
    section("artifacts", [`${kinds.length ? kinds.join(", ") : "any kind"} (max ${info.artifacts.max}${info.artifacts.agentTool ? ", tag tool" : ""})`]);
  }
  if (info.extensions.length) {
    section(
      "extensions",
      info.extensions.map((ext) => {
        const parts = [...ext.tools, ...ext.skills, ...ext.connections, ...ext.hooks, ...ext.channels, ...ext.schedules, ...ext.subagents, ...ext.artifactKinds];
        const hosting = [...ext.egressDomains.map((d) => `egress ${d}`), ...ext.secretNames.map((s) => `secret ${s}`)];
        return `${ext.namespace}${ext.name ? ` (${ext.name})` : ""}: ${parts.join(", ") || "nothing"}${hosting.length ? `; ${hosting.join(", ")}` : ""}`;
      }),
    );
  }
  if (info.schedules.length) section("schedules", info.schedules.map((s) => `${s.id}${typeof s.cron === "string" ? `  ${s.cron}` : ""}`));
  if (info.abs.length) {
    section(
      "experiments",
      info.abs.map((experiment) => {
        const arms = experiment.arms.map((arm) => {
          const varies = [
            arm.model ? `model ${arm.model.id}` : "",
            Object.keys(arm.params).length ? `params ${Object.entries(arm.params).map(([id, value]) => `${id}=${value}`).join(",")}` : "",
            arm.replacesInstructions ? "instructions" : "",
          ].filter(Boolean);
          return `${arm.id} (weight ${arm.weight}${varies.length ? `; ${varies.join("; ")}` : ""})`;
        });
        return `${experiment.id}: ${arms.join(", ")}`;
      }),
    );
  }
  // Every agent is an A2A server (docs/guide/a2a.md): where a peer finds it.
  section("a2a", [`card ${info.a2a.agentCard}`, `JSON-RPC ${info.a2a.jsonRpc}`, `HTTP+JSON ${info.a2a.jsonRpc}/...`]);
  const paint = { error: style.red, warning: style.yellow, info: style.dim } as const;
  if (info.diagnostics.length) section("diagnostics", info.diagnostics.map((d) => paint[d.severity](formatDiagnostic(d, ""))));
  return [`${style.bold(info.name)} ${style.dim(`(${info.slug}, ${info.dir})`)}`, ...table(rows).map((line) => `  ${line}`)];
}
