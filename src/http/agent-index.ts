/**
 * The multi-mode index routes that exist while the playground is enabled: `GET /` (a web page
 * linking each agent's playground) and `GET /v1/agents` (the same list as JSON, DESIGN.md).
 * @module
 */
import type { AgentRuntime } from "../agent-runtime.ts";
import { escapeHtml } from "./escape-html.ts";

export interface AgentIndexEntry {
  slug: string;
  name: string;
  description: string | null;
  basePath: string;
  playgroundUrl: string;
}

export function describeAgent(agent: AgentRuntime, origin: string): AgentIndexEntry {
  return {
    slug: agent.slug,
    name: agent.project.name,
    description: agent.project.description ?? null,
    basePath: agent.basePath,
    playgroundUrl: `${origin}${agent.basePath}/playground`,
  };
}

export function agentIndexPage(agents: readonly AgentRuntime[], options: { docs: boolean }): string {
  const items = agents
    .map((agent) => {
      const description = agent.project.description ? ` — ${escapeHtml(agent.project.description)}` : "";
      return `<li><a href="${escapeHtml(agent.basePath)}/playground">${escapeHtml(agent.project.name)}</a> <code>${escapeHtml(agent.basePath)}</code>${description}</li>`;
    })
    .join("\n");
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>agent-serve</title></head><body><h1>Agents</h1><ul>${items}</ul>${options.docs ? '<p><a href="/docs">Documentation</a></p>' : ""}</body></html>`;
}
