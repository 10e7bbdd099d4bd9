/**
 * The version of an agent definition (docs/design/deploy-safe-sessions.md "The agent version"):
 * a content hash of what a turn runs on, recorded in every `turn.started`. The same files give
 * the same version in every process and after every restart; a change to a tool (its schema,
 * description, approval gate or body), the instructions, the agent config, a hook, a skill or a
 * subagent gives another.
 *
 * Functions count by their source text, schemas by the JSON Schema they describe (or, when they
 * cannot describe themselves, by their validator's source), everything else by its JSON. Left
 * out: what differs between two checkouts of the same files (absolute paths, diagnostics), and
 * what does not shape a turn (channels, schedules, evals, the kv driver).
 * @module
 */
import type { ProjectDefinition } from "../base/definitions/project.ts";
import type { ToolDefinition } from "../base/definitions/tools.ts";
import { isStandardSchema, toolInputJsonSchema } from "../engine/tools/schema.ts";

/** Hex digits kept of the SHA-256: enough to tell versions apart, short enough to read in a log. */
const LENGTH = 16;

/** The version of `project`, `av_` and 16 hex digits. */
export async function agentVersion(project: ProjectDefinition): Promise<string> {
  const text = canonical(describeProject(project));
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  const hex = [...new Uint8Array(digest)].map((byte) => byte.toString(16).padStart(2, "0")).join("");
  return `av_${hex.slice(0, LENGTH)}`;
}

/** What the version covers, as plain data (exported for the tests that pin what counts). */
export function describeProject(project: ProjectDefinition): unknown {
  return {
    name: project.name,
    instructions: project.instructions,
    // Where `ctx.host.kv` keeps its data is not behaviour, and a driver is a live client object.
    agent: { ...project.agent, kv: undefined },
    tools: Object.fromEntries(Object.entries(project.tools ?? {}).map(([name, tool]) => [name, describeTool(tool)])),
    hooks: project.hooks ?? {},
    skills: Object.fromEntries(Object.entries(project.skills ?? {}).map(([name, { dir: _dir, source: _source, ...skill }]) => [name, skill])),
    subagents: project.subagents ?? {},
    connections: project.connections ?? {},
    seedFiles: project.seedFiles ?? {},
    ...(project.workspaceSeed ? { workspaceSeedFiles: project.workspaceSeed.files } : {}),
  };
}

// --- internals ---

function describeTool(tool: ToolDefinition): unknown {
  const { inputSchema, outputSchema, ...rest } = tool;
  return { ...rest, inputSchema: describeSchema(inputSchema), outputSchema: describeSchema(outputSchema) };
}

function describeSchema(schema: unknown): unknown {
  if (schema === undefined || schema === null) return null;
  if (!isStandardSchema(schema)) return schema;
  const json = toolInputJsonSchema({ inputSchema: schema });
  // A schema that cannot describe itself (an open object) is known by its validator instead.
  if (Object.keys((json as { properties?: object }).properties ?? {}).length > 0 || json.type !== "object") return json;
  const standard = schema["~standard"];
  return { vendor: standard.vendor, validate: String(standard.validate), json };
}

/**
 * JSON with sorted keys, functions as their source text, and cycles cut, so equal definitions
 * give equal text whatever order their members were written in.
 */
function canonical(value: unknown): string {
  const seen = new WeakSet<object>();
  const walk = (item: unknown): unknown => {
    if (typeof item === "function") return `function:${String(item)}`;
    if (typeof item === "bigint") return `bigint:${item}`;
    if (typeof item === "symbol" || item === undefined) return null;
    if (typeof item !== "object" || item === null) return item;
    if (seen.has(item)) return "[cycle]";
    seen.add(item);
    let out: unknown;
    if (Array.isArray(item)) out = item.map(walk);
    else if (item instanceof Map) out = [...item.entries()].map(walk);
    else if (item instanceof Set) out = [...item].map(walk);
    else if (item instanceof RegExp) out = String(item);
    else {
      const record: Record<string, unknown> = {};
      for (const key of Object.keys(item).sort()) {
        try {
          record[key] = walk((item as Record<string, unknown>)[key]);
        } catch {
          // A getter that throws reads the same way every time.
          record[key] = "[unreadable]";
        }
      }
      out = record;
    }
    seen.delete(item);
    return out;
  };
  return JSON.stringify(walk(value));
}
