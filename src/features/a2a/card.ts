/**
 * The agent card (docs/guide/a2a.md "The agent card"): built from the project, with the
 * endpoints this host serves, the capabilities it actually implements and the security that
 * matches how the server was started.
 * @module
 */
import type { A2ASkillDeclaration, ProjectDefinition } from "../../base/definitions/project.ts";

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
  examples?: string[];
}

/** Where the card is served below the agent's base (the protocol's well-known path). */
export const AGENT_CARD_PATH = "/.well-known/agent-card.json";

/** The path of the JSON-RPC endpoint below the agent's base. */
export const JSONRPC_PATH = "/v1/a2a";

/** Whether the project declares an extended card (`a2a.extendedSkills` in `bot/agent.ts`). */
export const hasExtendedCard = (project: ProjectDefinition): boolean => (project.agent.a2a?.extendedSkills?.length ?? 0) > 0;

/**
 * The public card; with `extended`, the card of `GetExtendedAgentCard` (callers the agent's chain
 * admitted): the same plus the declared `extendedSkills`.
 */
export function buildAgentCard(input: CardInput, extended = false): Record<string, unknown> {
  const { project } = input;
  return {
    name: project.name,
    description: project.description ?? `${project.name}, served by agent-serve`,
    version: input.version,
    supportedInterfaces: [
      { url: `${input.agentUrl}${JSONRPC_PATH}`, protocolBinding: "JSONRPC", protocolVersion: "1.0" },
      { url: `${input.agentUrl}${JSONRPC_PATH}`, protocolBinding: "HTTP+JSON", protocolVersion: "1.0" },
    ],
    capabilities: { streaming: true, pushNotifications: true, extendedAgentCard: hasExtendedCard(project) },
    defaultInputModes: ["text/plain", "application/json"],
    defaultOutputModes: ["text/plain", "application/json"],
    skills: extended ? [...skillsOf(project), ...(project.agent.a2a?.extendedSkills ?? []).map(toSkill)] : skillsOf(project),
    ...security(input.auth),
    // What a 0.3 client reads to find the endpoint, which answers the 0.3 method names too
    // (docs/guide/a2a.md "0.3 clients"); a 1.0 client reads `supportedInterfaces` and ignores these.
    url: `${input.agentUrl}${JSONRPC_PATH}`,
    preferredTransport: "JSONRPC",
    // The 0.3 HTTP+JSON binding: a 0.3 client appends `/v1/message:send` and the rest to this URL.
    additionalInterfaces: [
      { url: `${input.agentUrl}${JSONRPC_PATH}`, transport: "JSONRPC" },
      { url: `${input.agentUrl}${JSONRPC_PATH}`, transport: "HTTP+JSON" },
    ],
    protocolVersion: "0.3.0",
    supportsAuthenticatedExtendedCard: hasExtendedCard(project),
  };
}

// --- internals ---

/**
 * The skills `bot/agent.ts` declares (`a2a.skills`), else the project's skills and tools; a
 * project with neither offers one skill: talking to it.
 */
function skillsOf(project: ProjectDefinition): AgentSkill[] {
  const declared = project.agent.a2a?.skills;
  if (declared) return declared.map(toSkill);
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

function toSkill(skill: A2ASkillDeclaration): AgentSkill {
  return { id: skill.id, name: skill.name, description: skill.description, tags: skill.tags ?? [], ...(skill.examples ? { examples: skill.examples } : {}) };
}

/**
 * Bearer under `--bearer-token`. Loopback-only and anonymous servers need no credential, and an
 * authored chain (custom policies, `bot/channels/http.ts`) is code the card cannot describe: both
 * declare no scheme (docs/guide/a2a.md "Security").
 */
function security(auth: CardAuth): Record<string, unknown> {
  if (auth !== "bearer") return {};
  const description = "The server's bearer token (--bearer-token, or an access token of --oauth-issuer)";
  return {
    // One scheme in both forms: 1.0's oneof member, and 0.3's OpenAPI-style `type` and `scheme`
    // beside it; each reader takes its own and ignores the other's.
    securitySchemes: { bearer: { httpAuthSecurityScheme: { scheme: "Bearer", description }, type: "http", scheme: "bearer", description } },
    securityRequirements: [{ schemes: { bearer: { list: [] } } }],
    // 0.3's requirement list.
    security: [{ bearer: [] }],
  };
}
