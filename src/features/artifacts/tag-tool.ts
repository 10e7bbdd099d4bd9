/**
 * The model-facing `tag_artifact` tool (docs/design/tools.md "Artifacts": `agentTool`), generated
 * from the declared kinds, and the checks the loader reports as diagnostics.
 *
 * The union over kinds sits on the `kind` enum and the `data` member rather than at the root:
 * providers reject `oneOf`/`anyOf`/`allOf` at the top level of a tool's input schema (the
 * Anthropic Messages API answers 400 for it), and a root `type: "object"` is what every provider
 * accepts. The store enforces the pairing of kind and data.
 * @module
 */
import { unknownKeyDiagnostics } from "../../engine/project/unknown-keys.ts";
import { isStandardSchema, canDescribeSchema, toolInputJsonSchema } from "../../engine/tools/schema.ts";
import type { ModelToolSpec } from "../../base/ports/model.ts";
import type { Diagnostic } from "../../base/definitions/project.ts";
import { badRequest } from "../../base/errors.ts";
import type { ArtifactStore, TagAttribution } from "./store.ts";
import type { ArtifactKind, ArtifactRecord, ArtifactsDefinition, TagInput } from "../../base/definitions/artifacts.ts";

export const TAG_ARTIFACT_TOOL = "tag_artifact";

export interface TagArtifactTool {
  spec: ModelToolSpec;
  /** Tags through the store with `source: "model"`; throws `HTTPError` 400 on input it rejects. */
  execute(input: unknown, attribution: TagAttribution, store: ArtifactStore): Promise<ArtifactRecord>;
}

/** The tool, or undefined when `agentTool` is off or no kind is declared (a diagnostic says so). */
export function tagArtifactTool(definition: ArtifactsDefinition): TagArtifactTool | undefined {
  const kinds = Object.entries(definition.kinds ?? {});
  if (definition.agentTool !== true || kinds.length === 0) return undefined;
  const spec: ModelToolSpec = {
    name: TAG_ARTIFACT_TOOL,
    description: toolDescription(kinds),
    inputSchema: tagInputJsonSchema(kinds),
  };
  return {
    spec,
    async execute(input, attribution, store) {
      if (typeof input !== "object" || input === null || Array.isArray(input)) {
        throw badRequest("tag_artifact input must be an object");
      }
      // The model tags for its own session only: attribution comes from the turn, never the input.
      const { sessionId: _ignored, ...rest } = input as Record<string, unknown>;
      return store.tag(rest as unknown as TagInput, { ...attribution, source: "model" }); // SAFETY: the store validates the shape
    },
  };
}

/** Problems with a `defineArtifacts` declaration, for the loader (an `error` stops `serve`). */
export function validateArtifactsDefinition(definition: ArtifactsDefinition, file?: string): Diagnostic[] {
  const diagnostics: Diagnostic[] = [];
  const report = (severity: Diagnostic["severity"], code: string, message: string): void => {
    diagnostics.push({ severity, code, message, ...(file === undefined ? {} : { file }) });
  };
  const { kinds, agentTool, max } = definition;
  if (max !== undefined && (typeof max !== "number" || !Number.isInteger(max) || max < 1)) {
    report("error", "invalid_artifacts_max", `artifacts max must be a positive integer, got ${JSON.stringify(max)}`);
  }
  if (agentTool !== undefined && typeof agentTool !== "boolean") {
    report("error", "invalid_artifacts", "artifacts agentTool must be a boolean");
  }
  if (kinds !== undefined && (typeof kinds !== "object" || kinds === null || Array.isArray(kinds))) {
    report("error", "invalid_artifacts", "artifacts kinds must be an object of kind name to {description, schema?}");
    return diagnostics;
  }
  const entries = Object.entries(kinds ?? {});
  if (agentTool === true && entries.length === 0) {
    report("error", "artifacts_agent_tool_without_kinds", "artifacts agentTool needs at least one declared kind");
  }
  for (const [name, kind] of entries) {
    const problem = kindProblem(name, kind);
    if (problem) report("error", "invalid_artifact_kind", problem);
    else if (agentTool === true && kind.schema && !canDescribeSchema(kind.schema)) {
      report("warning", "artifact_schema_not_describable", `the schema of artifact kind ${name} cannot be shown to the model as JSON Schema; it still validates`);
    }
  }
  // SAFETY: the definition as authored; only its own keys are read.
  diagnostics.push(...unknownKeyDiagnostics(definition as unknown as Record<string, unknown>, ["kinds", "agentTool", "max"], "artifacts", file));
  return diagnostics;
}

// --- internals ---

function kindProblem(name: string, kind: ArtifactKind): string | undefined {
  if (name.length === 0 || name.length > 128) return `artifact kind names must have 1 to 128 characters, got ${JSON.stringify(name)}`;
  if (typeof kind !== "object" || kind === null) return `artifact kind ${name} must be {description, schema?}`;
  if (typeof kind.description !== "string" || kind.description.trim() === "") return `artifact kind ${name} needs a description`;
  if (kind.schema !== undefined && !isStandardSchema(kind.schema)) {
    return `the schema of artifact kind ${name} must be a Standard Schema (valibot, zod, arktype)`;
  }
  return undefined;
}

function toolDescription(kinds: Array<[string, ArtifactKind]>): string {
  const lines = kinds.map(([name, kind]) => `- ${name}: ${kind.description}`);
  return [
    "Tag a durable artifact of this conversation so people can find it later. Tagging the same kind and key again replaces the artifact (and keeps its file unless new contents are given).",
    "Kinds (data must match the kind's schema):",
    ...lines,
  ].join("\n");
}

function tagInputJsonSchema(kinds: Array<[string, ArtifactKind]>): Record<string, unknown> {
  const dataBranches = kinds.map(([name, kind]) => ({ ...dataJsonSchema(kind), description: `data when kind is "${name}": ${kind.description}` }));
  return {
    type: "object",
    properties: {
      kind: { type: "string", enum: kinds.map(([name]) => name), description: "Which kind of artifact this is." },
      key: { type: "string", minLength: 1, description: "Stable identifier within the kind; tagging the same key again replaces the artifact." },
      title: { type: "string", description: "Short human-readable title." },
      data: dataBranches.length === 1 ? dataBranches[0] : { anyOf: dataBranches },
      contents: { type: "string", description: "Optional file contents to attach (downloadable)." },
      contentType: { type: "string", description: "Media type of contents, e.g. text/markdown." },
    },
    required: ["kind", "key", "title", "data"],
    additionalProperties: false,
  };
}

/** The kind's schema as JSON Schema; `{}` (anything) without a schema or when it cannot be described. */
function dataJsonSchema(kind: ArtifactKind): Record<string, unknown> {
  if (!kind.schema || !canDescribeSchema(kind.schema)) return {};
  return toolInputJsonSchema({ inputSchema: kind.schema });
}
