/**
 * The `tools` allowlist of docs/guide/agent-projects.md "Agent configuration": which built-in
 * harness tools a turn gets. Unset means all of them, an empty list none; `mcp` is always added to
 * a configured list; unknown names fail the turn with a ConfigurationError.
 * @module
 */

/** Public harness tool names, in the order the model sees them. */
export const HARNESS_TOOL_NAMES = ["shell", "read", "edit", "grep", "glob", "ls", "task", "mcp"] as const;
export type HarnessToolId = (typeof HARNESS_TOOL_NAMES)[number];

export interface Allowlist {
  /** The harness tools the turn may offer (before checking what the project has: subagents, connections). */
  allowed: ReadonlySet<HarnessToolId>;
  /** Names in the configured list that are not harness tools. */
  unknown: string[];
  /** Whether a list was configured at all. */
  configured: boolean;
}

export function resolveAllowlist(tools: readonly unknown[] | undefined): Allowlist {
  if (tools === undefined) return { allowed: new Set(HARNESS_TOOL_NAMES), unknown: [], configured: false };
  const allowed = new Set<HarnessToolId>(["mcp"]);
  const unknown: string[] = [];
  for (const name of tools) {
    if (isHarnessToolName(name)) allowed.add(name);
    else unknown.push(typeof name === "string" ? name : JSON.stringify(name));
  }
  return { allowed, unknown, configured: true };
}

/** The message of the ConfigurationError that fails a turn of an agent with unknown names. */
export function unknownToolsMessage(unknown: readonly string[], where = "tools"): string {
  const names = unknown.map((name) => JSON.stringify(name)).join(", ");
  return `ConfigurationError: ${where} lists unknown harness tool${unknown.length === 1 ? "" : "s"} ${names}; known names: ${HARNESS_TOOL_NAMES.join(", ")}`;
}

export function isHarnessToolName(name: unknown): name is HarnessToolId {
  return typeof name === "string" && (HARNESS_TOOL_NAMES as readonly string[]).includes(name);
}

/**
 * The harness tools a turn of `project` is offered: what the allowlist grants and the project can
 * use (`task` needs subagents, `mcp` connections); none on a cloud runtime or where the runtime
 * runs no harness (`hasHarness` false: Workers, no runtime).
 */
export function offeredHarnessTools(
  project: { agent: { tools?: readonly unknown[]; runtime?: string }; subagents?: object; connections?: object },
  hasHarness: boolean,
): HarnessToolId[] {
  if (!hasHarness || project.agent.runtime === "cloud") return [];
  const { allowed, unknown } = resolveAllowlist(project.agent.tools);
  if (unknown.length > 0) return [];
  return HARNESS_TOOL_NAMES.filter((name) => {
    if (!allowed.has(name)) return false;
    if (name === "task") return Object.keys(project.subagents ?? {}).length > 0;
    if (name === "mcp") return Object.keys(project.connections ?? {}).length > 0;
    return true;
  });
}
