/**
 * The `STATE_DELTA` between two channel states: top-level keys added, replaced or removed, as JSON
 * Patch (RFC 6902) with JSON Pointer paths (RFC 6901). A channel's send merges state by top-level
 * key (docs/guide/ag-ui.md "State"), so that is the grain a delta needs.
 * @module
 */
import type { PatchOperation } from "./wire.ts";

export function stateDelta(before: Record<string, unknown>, after: Record<string, unknown>): PatchOperation[] {
  const ops: PatchOperation[] = [];
  for (const key of Object.keys(before)) if (!(key in after)) ops.push({ op: "remove", path: pointer(key) });
  for (const [key, value] of Object.entries(after)) {
    if (!(key in before)) ops.push({ op: "add", path: pointer(key), value });
    else if (JSON.stringify(before[key]) !== JSON.stringify(value)) ops.push({ op: "replace", path: pointer(key), value });
  }
  return ops;
}

// --- internals ---

const pointer = (key: string): string => `/${key.replaceAll("~", "~0").replaceAll("/", "~1")}`;
