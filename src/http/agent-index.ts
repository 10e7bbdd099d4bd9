/**
 * The multi-mode index routes that exist while the playground is enabled: `GET /` (a web page
 * linking each agent's playground) and `GET /v1/agents` (the same list as JSON,
 * docs/guide/http-api.md "Route layout").
 * @module
 */
import type { AgentRuntime } from "./agent.ts";
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

/**
 * The web index. It links each agent's playground and the docs, and nothing on it runs or loads:
 * styles are inline and the headers forbid everything else.
 */
export function agentIndexPage(agents: readonly AgentRuntime[], options: { docs: boolean }): string {
  const items = agents
    .map((agent) => {
      const description = agent.project.description ? `<p>${escapeHtml(agent.project.description)}</p>` : "";
      const base = escapeHtml(agent.basePath);
      return `<li><a href="${base}/playground">${escapeHtml(agent.project.name)}</a> <code>${base}</code>${description}</li>`;
    })
    .join("");
  const docs = options.docs ? '<p><a href="/docs">Documentation</a></p>' : "";
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="color-scheme" content="light dark"><link rel="icon" href="data:,"><title>agent-serve</title><style>${STYLE}</style></head><body><h1>Agents</h1><ul>${items}</ul>${docs}</body></html>`;
}

/** Headers of the index page: inline styles only, no scripts, no requests, no framing. */
export const AGENT_INDEX_HEADERS: Record<string, string> = {
  "content-type": "text/html; charset=utf-8",
  "x-content-type-options": "nosniff",
  "content-security-policy": "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  "referrer-policy": "no-referrer",
};

// --- internals ---

const STYLE = [
  "body{font:16px/1.5 system-ui,sans-serif;max-width:44rem;margin:3rem auto;padding:0 1rem}",
  "ul{list-style:none;padding:0}",
  "li{border:1px solid #8884;border-radius:8px;padding:.75rem 1rem;margin:.5rem 0}",
  "li a{font-weight:600}li p{margin:.25rem 0 0;opacity:.8}",
  "code{font-size:.85em;opacity:.7;margin-left:.5rem}",
].join("");
