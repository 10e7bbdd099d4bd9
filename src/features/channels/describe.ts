/**
 * Channels as `/v1/info`, `info`, the docs site and the playground list them: routes with their
 * schemas as JSON Schema, and the event types each channel subscribes to.
 * @module
 */
import type { StandardSchema } from "../../base/validate.ts";
import { toolInputJsonSchema } from "../../engine/tools/schema.ts";
import type { JsonSchemaObject } from "../../base/definitions/tools.ts";
import { HTTP_CHANNEL } from "./http-channel.ts";
import { channelRoutePath } from "./routes.ts";
import type { ChannelDefinition } from "../../base/definitions/channels.ts";

export interface ChannelRouteInfo {
  method: string;
  /** Full path, base path included (`/<slug>/v1/channels/<id>/...` in multi mode). */
  path: string;
  description: string;
  bodySchema?: JsonSchemaObject;
  querySchema?: JsonSchemaObject;
}

export interface ChannelInfo {
  id: string;
  routes: ChannelRouteInfo[];
  /** Event types (or `*`) the channel's `events` map subscribes to. */
  events: string[];
  /** Whether the channel authors its own auth chain. */
  auth: "authored" | "default";
}

/** The authored channels, sorted by id (the `http` override contributes no routes). */
export function describeChannels(channels: Record<string, ChannelDefinition> | undefined, basePath: string): ChannelInfo[] {
  return Object.entries(channels ?? {})
    .filter(([id]) => id !== HTTP_CHANNEL)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([id, definition]) => ({
      id,
      routes: (definition.routes ?? []).map((route) => ({
        method: route.method,
        path: `${basePath}${channelRoutePath(id, route.path)}`,
        description: route.description ?? "",
        ...(route.bodySchema ? { bodySchema: jsonSchemaOf(route.bodySchema) } : {}),
        ...(route.querySchema ? { querySchema: jsonSchemaOf(route.querySchema) } : {}),
      })),
      events: Object.keys(definition.events ?? {}).sort(),
      auth: definition.auth ? "authored" : "default",
    }));
}

/** A declared schema as JSON Schema (an open object when the library cannot describe it). */
export function jsonSchemaOf(schema: StandardSchema | unknown): JsonSchemaObject {
  // SAFETY: loaded channels passed validateChannels, so a declared schema is a Standard Schema.
  return toolInputJsonSchema({ inputSchema: schema as StandardSchema });
}
