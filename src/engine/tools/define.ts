import type { StandardSchema } from "../../base/validate.ts";
import type { JsonSchemaObject, ToolDefinition } from "../../base/definitions/tools.ts";

/**
 * The output type of a Standard Schema (what `execute` receives after validation and transforms),
 * read from the `~standard.types` member every Standard Schema library declares.
 */
export type InferOutput<Schema> = Schema extends {
  readonly "~standard": { readonly types?: { readonly output: infer Output } | undefined };
}
  ? Output
  : unknown;

/** A tool whose `inputSchema` is a Standard Schema: `execute` and `needsApproval` see its output type. */
export interface SchemaToolDefinition<Schema extends StandardSchema> extends Omit<ToolDefinition<InferOutput<Schema>>, "inputSchema"> {
  inputSchema: Schema;
}

/** A tool with a plain JSON Schema (passed through unvalidated) or no schema at all. */
export interface PlainToolDefinition<Input = unknown> extends Omit<ToolDefinition<Input>, "inputSchema"> {
  inputSchema?: JsonSchemaObject;
}

/**
 * Declares a tool in `bot/tools/<name>.ts`; the file name is the model-facing tool name. A typed
 * identity function: with a Standard Schema (valibot, zod, arktype) as `inputSchema`, the input
 * of `execute` is the schema's output type; with a plain JSON Schema or none it is `unknown`.
 * @example
 * export default defineTool({
 *   description: "Current weather for a city",
 *   inputSchema: v.object({ city: v.string() }),
 *   execute: async ({ city }) => `Sunny in ${city}`,
 * });
 */
export function defineTool<Schema extends StandardSchema>(definition: SchemaToolDefinition<Schema>): SchemaToolDefinition<Schema>;
export function defineTool<Input = unknown>(definition: PlainToolDefinition<Input>): PlainToolDefinition<Input>;
export function defineTool(definition: ToolDefinition): ToolDefinition {
  return definition;
}
