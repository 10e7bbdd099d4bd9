/**
 * The agent card (docs/guide/a2a.md "The agent card"): built from the project, with the
 * endpoints this host serves, the capabilities it actually implements and the security that
 * matches how the server was started.
 * @module
 */
import type { ProjectDefinition } from "../../base/definitions/project.ts";

/** How the agent's routes authenticate, as the card describes it. */
export type CardAuth = "bearer" | "loopback" | "anonymous" | "custom";

export interface CardInput {
  project: ProjectDefinition;
  /** The agent's absolute URL (origin and base path). */
  agentUrl: string;
  /** The host's version (projects have none of their own). */
  version: string;
  auth: CardAuth;
}

export interface AgentSkill {
  id: string;
  name: string;
  description: string;
  tags: string[];
}

/** Where the card is served below the agent's base (the protocol's well-known path). */
export const AGENT_CARD_PATH = "/.well-known/agent-card.json";

/** The path of the JSON-RPC endpoint below the agent's base. */
export const JSONRPC_PATH = "/v1/a2a";

export function buildAgentCard(input: CardInput): Record<string, unknown> {
  const { project } = input;
  return {
    name: project.name,
    description: project.description ?? `${project.name}, served by agent-serve`,
    version: input.version,
    supportedInterfaces: [
      { url: `${input.agentUrl}${JSONRPC_PATH}`, protocolBinding: "JSONRPC", protocolVersion: "1.0" },
      { url: `${input.agentUrl}${JSONRPC_PATH}`, protocolBinding: "HTTP+JSON", protocolVersion: "1.0" },
    ],
    capabilities: { streaming: true, pushNotifications: true, extendedAgentCard: false },
    defaultInputModes: ["text/plain", "application/json"],
    defaultOutputModes: ["text/plain", "application/json"],
    skills: skillsOf(project),
    ...security(input.auth),
  };
}

// --- internals ---

/** The project's skills and tools; a project with neither offers one skill: talking to it. */
function skillsOf(project: ProjectDefinition): AgentSkill[] {
  const skills: AgentSkill[] = [];
  for (const [name, skill] of Object.entries(project.skills ?? {})) {
    skills.push({ id: `skill:${name}`, name, description: skill.description, tags: ["skill"] });
  }
  for (const [name, tool] of Object.entries(project.tools ?? {})) {
    skills.push({ id: `tool:${name}`, name, description: tool.description, tags: ["tool"] });
  }
  if (skills.length === 0) skills.push({ id: "chat", name: "chat", description: project.description ?? `Talk with ${project.name}`, tags: ["chat"] });
  return skills;
}

/**
 * Bearer under `--bearer-token`. Loopback-only and anonymous servers need no credential, and an
 * authored chain (custom policies, `bot/channels/http.ts`) is code the card cannot describe: both
 * declare no scheme (docs/guide/a2a.md "Security").
 */
function security(auth: CardAuth): Record<string, unknown> {
  if (auth !== "bearer") return {};
  return {
    securitySchemes: { bearer: { httpAuthSecurityScheme: { scheme: "Bearer", description: "The server's bearer token (--bearer-token)" } } },
    securityRequirements: [{ schemes: { bearer: { list: [] } } }],
  };
}
