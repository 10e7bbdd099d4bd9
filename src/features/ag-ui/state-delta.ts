/**
 * The `STATE_DELTA` between two channel states, as JSON Patch (RFC 6902) with JSON Pointer paths
 * (RFC 6901): objects are compared key by key at every depth, so a change deep in the state is one
 * operation on its own path; any other value (an array, a scalar, a change of type) that differs is
 * replaced whole (docs/design/ag-ui-runs.md "State deltas").
 * @module
 */
import type { PatchOperation } from "./wire.ts";

export function stateDelta(before: Record<string, unknown>, after: Record<string, unknown>): PatchOperation[] {
  const ops: PatchOperation[] = [];
  diffObjects(before, after, "", ops);
  return ops;
}

// --- internals ---

function diffObjects(before: Record<string, unknown>, after: Record<string, unknown>, path: string, ops: PatchOperation[]): void {
  for (const key of Object.keys(before)) if (!Object.hasOwn(after, key)) ops.push({ op: "remove", path: `${path}/${escape(key)}` });
  for (const [key, value] of Object.entries(after)) {
    const at = `${path}/${escape(key)}`;
    if (!Object.hasOwn(before, key)) ops.push({ op: "add", path: at, value });
    else diffValues(before[key], value, at, ops);
  }
}

function diffValues(before: unknown, after: unknown, path: string, ops: PatchOperation[]): void {
  if (isPlainObject(before) && isPlainObject(after)) diffObjects(before, after, path, ops);
  else if (JSON.stringify(before) !== JSON.stringify(after)) ops.push({ op: "replace", path, value: after });
}

const isPlainObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

const escape = (key: string): string => key.replaceAll("~", "~0").replaceAll("/", "~1");
