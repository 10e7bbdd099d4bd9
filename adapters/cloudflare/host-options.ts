/**
 * What every host on Workers shares: the projects (with the `runtime_limits` notice), the route
 * mode, auth and model credentials from the worker's variables (docs/guide/cloudflare.md
 * "Configuration"). Each Durable Object builds its own host from these with its own storage and
 * timers.
 * @module
 */
import type { ProjectDefinition } from "../../src/base/definitions/project.ts";
import type { AgentHostOptions } from "../../src/host/types.ts";
import type { DocsSite, PlaygroundSite } from "../../src/http/site-types.ts";
import type { ModelCredentials } from "../../src/base/ports/model.ts";
import type { DeploymentOptions } from "./deployment-gate.ts";

/** One agent the worker serves: `slug` is its URL prefix in multi mode. */
export interface CloudflareProject {
  slug: string;
  project: ProjectDefinition;
}

export interface CloudflareWorkerOptions {
  /** Route layout (docs/guide/http-api.md "Route layout"). @default "multi" */
  mode?: "single" | "multi";
  /** The agents, or a function resolving them (called once per Durable Object instance). */
  projects: CloudflareProject[] | (() => CloudflareProject[] | Promise<CloudflareProject[]>);
  docs?: DocsSite;
  playground?: boolean | PlaygroundSite;
  /** Replaces the auth read from the variables (`AGENT_SERVE_BEARER_TOKEN`, `AGENT_SERVE_ALLOW_ANONYMOUS`). */
  auth?: AgentHostOptions["auth"];
  /**
   * Set by `agent-serve deploy`: the worker then requires the alias token and obeys the stop
   * switch (docs/guide/cloudflare.md "Deployments and the alias token"). @default undefined (no gate)
   */
  deployment?: DeploymentOptions;
  /** Further host options (logger, log level, model resolution, limits). */
  host?: Omit<AgentHostOptions, "agents" | "mode" | "docs" | "playground" | "auth" | "timers">;
}

/** The notice `GET /v1/info` lists for every agent served on Workers. */
export const WORKERS_LIMITS =
  "on Cloudflare Workers only server tools run: there is no local harness (no workspace, shell, file or script tools; the allowlist is empty)";

const CREDENTIAL_VARIABLES: Record<keyof ModelCredentials, string> = {
  openai: "OPENAI_API_KEY",
  anthropic: "ANTHROPIC_API_KEY",
  "openai-compatible": "AGENT_SERVE_OPENAI_COMPATIBLE_API_KEY",
  xai: "XAI_API_KEY",
};

/** Resolves the projects once per caller and marks each with the Workers notice. */
export async function loadProjects(options: CloudflareWorkerOptions): Promise<CloudflareProject[]> {
  const projects = typeof options.projects === "function" ? await options.projects() : options.projects;
  return projects.map(({ slug, project }) => ({
    slug,
    project: { ...project, diagnostics: [...project.diagnostics, { severity: "info", code: "runtime_limits", message: WORKERS_LIMITS }] },
  }));
}

/** Host options from the worker options and `env`, without storage and timers (the objects add them). */
export function sharedHostOptions(options: CloudflareWorkerOptions, env: Record<string, unknown>): Omit<AgentHostOptions, "agents"> {
  const text = (name: string): string | undefined => (typeof env[name] === "string" && env[name] !== "" ? (env[name] as string) : undefined);
  const credentials: ModelCredentials = {};
  for (const [provider, variable] of Object.entries(CREDENTIAL_VARIABLES) as Array<[keyof ModelCredentials, string]>) {
    const value = text(variable);
    if (value !== undefined) credentials[provider] = value;
  }
  const bearerToken = text("AGENT_SERVE_BEARER_TOKEN");
  const allowAnonymous = /^(1|true|yes)$/i.test(text("AGENT_SERVE_ALLOW_ANONYMOUS") ?? "");
  const baseURL = text("AGENT_SERVE_OPENAI_BASE_URL");
  const host = options.host ?? {};
  return {
    ...host,
    mode: options.mode ?? "multi",
    ...(options.docs ? { docs: options.docs } : {}),
    ...(options.playground === undefined ? {} : { playground: options.playground }),
    auth: options.auth ?? { ...(bearerToken ? { bearerToken } : {}), ...(allowAnonymous ? { allowAnonymous } : {}) },
    models: {
      credentials,
      ...(baseURL ? { openaiCompatibleBaseURL: baseURL } : {}),
      ...host.models,
    },
  };
}
