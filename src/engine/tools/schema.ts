/**
 * Tool input schemas: the JSON Schema the model and `/v1/info` see, and validation before
 * execution (docs/design/tools.md "Tools": a schema-validator object validates and transforms; a
 * plain JSON Schema is passed through unvalidated).
 * @module
 */
import { toJsonSchema } from "@valibot/to-json-schema";
import { type StandardSchema, validate } from "../../base/validate.ts";
import type { JsonSchemaObject, ToolDefinition } from "../../base/definitions/tools.ts";

/** What the model sees for a tool without a schema: any object. */
const openObject = (): JsonSchemaObject => ({ type: "object", properties: {} });

/** True for any Standard Schema object (valibot, zod, arktype, ...). */
export function isStandardSchema(value: unknown): value is StandardSchema {
  if (!isObject(value) && typeof value !== "function") return false;
  const standard = (value as { "~standard"?: unknown })["~standard"];
  return isObject(standard) && typeof standard.validate === "function";
}

/**
 * The JSON Schema of a tool's input. A Standard Schema that cannot describe itself, or whose
 * conversion fails, is shown as an open object; validation still applies on the host.
 */
export function toolInputJsonSchema(def: Pick<ToolDefinition, "inputSchema">): JsonSchemaObject {
  const schema = def.inputSchema;
  if (schema === undefined || schema === null) return openObject();
  if (!isStandardSchema(schema)) return schema;
  const json = describe(schema);
  // A copy, so a caller that decorates the schema (providers add members) cannot alter the cache.
  return json ? structuredClone(json) : openObject();
}

/** Whether `toolInputJsonSchema` can describe this schema (tool validation warns when it cannot). */
export function canDescribeSchema(schema: unknown): boolean {
  return !isStandardSchema(schema) || describe(schema) !== undefined;
}

/**
 * Validates and transforms raw tool input with a Standard Schema; issues become a 400
 * `invalid_request` with `issues`. Plain JSON Schema or no schema: the raw input as is.
 */
export async function validateToolInput(def: Pick<ToolDefinition, "inputSchema">, raw: unknown): Promise<unknown> {
  const schema = def.inputSchema;
  return isStandardSchema(schema) ? validate(raw, schema, "tool input") : raw;
}

/** JSON Schema keywords: an object with none of them (and not `{}`) is not a JSON Schema. */
const JSON_SCHEMA_KEYWORDS = new Set([
  "$schema", "$id", "$ref", "$defs", "definitions", "type", "properties", "required", "additionalProperties",
  "patternProperties", "items", "prefixItems", "enum", "const", "anyOf", "oneOf", "allOf", "not", "if", "then", "else",
  "description", "title", "default", "examples", "format", "minimum", "maximum", "minLength", "maxLength", "pattern",
  "minItems", "maxItems", "uniqueItems", "nullable",
]);
const JSON_TYPES = new Set(["object", "array", "string", "number", "integer", "boolean", "null"]);

/**
 * Why a plain object is not a JSON Schema, or `undefined` when it plausibly is. Catches the
 * common slip of a map of field types (`{ orderId: "string" }`).
 */
export function jsonSchemaProblem(schema: Record<string, unknown>): string | undefined {
  const keys = Object.keys(schema);
  if (keys.length > 0 && !keys.some((key) => JSON_SCHEMA_KEYWORDS.has(key))) {
    const shape = keys.slice(0, 3).map((key) => `${key}: ${JSON.stringify(schema[key]) ?? typeof schema[key]}`).join(", ");
    return `it has no JSON Schema keyword and looks like a map of field types ({${shape}}); write v.object({...}) or {type: "object", properties: {...}}`;
  }
  const type = schema.type;
  const types = Array.isArray(type) ? type : type === undefined ? [] : [type];
  const bad = types.find((member) => typeof member !== "string" || !JSON_TYPES.has(member));
  if (bad !== undefined) return `type ${JSON.stringify(bad)} is not a JSON Schema type`;
  if (schema.properties !== undefined) {
    if (!isObject(schema.properties)) return "properties must be an object of schemas";
    const field = Object.entries(schema.properties).find(([, member]) => !isObject(member) && typeof member !== "boolean");
    if (field) return `properties.${field[0]} must be a schema object (e.g. {type: "string"}), not ${JSON.stringify(field[1])}`;
  }
  return undefined;
}

// --- internals ---

/** Conversions are pure and some are slow; `null` remembers a schema that cannot be described. */
const converted = new WeakMap<object, JsonSchemaObject | null>();

function describe(schema: StandardSchema): JsonSchemaObject | undefined {
  let json = converted.get(schema);
  if (json === undefined) {
    json = convertStandardSchema(schema) ?? null;
    converted.set(schema, json);
  }
  return json ?? undefined;
}

type Converter = (schema: StandardSchema) => unknown;

/** Tried in order; the first one that applies and returns an object wins. */
const CONVERTERS: Converter[] = [
  // valibot: its own converter. `typeMode: "input"` describes what the model must send (before
  // transforms); `errorMode: "ignore"` drops parts JSON Schema cannot express instead of throwing.
  (schema) => (isValibotSchema(schema) ? toJsonSchema(schema, { errorMode: "ignore", typeMode: "input" }) : undefined),
  // Standard JSON Schema (zod 4.2+, valibot's toStandardJsonSchema, arktype).
  (schema) => {
    const jsonSchema = (schema["~standard"] as { jsonSchema?: { input?: unknown } }).jsonSchema;
    return typeof jsonSchema?.input === "function" ? jsonSchema.input({ target: "draft-07" }) : undefined;
  },
  // Older zod 4 releases: a `toJSONSchema` method on the schema.
  (schema) => {
    const method = (schema as { toJSONSchema?: unknown }).toJSONSchema;
    return typeof method === "function" ? method.call(schema) : undefined;
  },
];

function convertStandardSchema(schema: StandardSchema): JsonSchemaObject | undefined {
  for (const convert of CONVERTERS) {
    let result: unknown;
    try {
      result = convert(schema);
    } catch {
      continue;
    }
    if (isObject(result)) {
      const { $schema: _dialect, ...rest } = result;
      return rest;
    }
  }
  return undefined;
}

type ValibotSchema = Parameters<typeof toJsonSchema>[0];

function isValibotSchema(schema: StandardSchema): schema is StandardSchema & ValibotSchema {
  const record = schema as unknown as Record<string, unknown>;
  return schema["~standard"].vendor === "valibot" && record.kind === "schema" && typeof record["~run"] === "function";
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
