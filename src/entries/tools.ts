/**
 * `agent-serve/tools`: typed actions the model calls, also callable over `POST /v1/tools/:name`.
 * @module
 */
export { defineTool } from "../engine/tools/define.ts";
export { a2aAgent } from "../features/a2a/client-tool.ts";
export type { A2AAgentToolOptions, A2AAgentToolResult } from "../features/a2a/client-tool.ts";
export type { InferOutput, PlainToolDefinition, SchemaToolDefinition } from "../engine/tools/define.ts";
export type { JsonSchemaObject, ToolContext, ToolDefinition, ToolResultEnvelope, ToolSessionView } from "../base/definitions/tools.ts";
