/**
 * Diagnostics for channel definitions (docs/guide/channels.md "Schema rules"): every problem is an
 * error naming the file and, for routes, the route, so `validate` fails and `serve` refuses.
 * @module
 */
import type { Diagnostic } from "../../base/definitions/project.ts";
import { isStandardSchema } from "../../engine/tools/schema.ts";
import { HTTP_CHANNEL } from "./http-channel.ts";

const CHANNEL_ID = /^[A-Za-z0-9][A-Za-z0-9_-]*$/;
const METHODS = new Set(["GET", "POST", "PUT", "PATCH", "DELETE"]);
const BODY_REQUIRED = new Set(["POST", "PUT", "PATCH"]);
const KNOWN_MEMBERS = new Set(["state", "auth", "routes", "events", "onStart", "onStop", "onMessage"]);

/** Diagnostics for `channels` (id to default export); `files` maps ids to project-relative files. */
export function validateChannels(channels: Record<string, unknown>, files: Record<string, string> = {}): Diagnostic[] {
  const diagnostics: Diagnostic[] = [];
  for (const [id, def] of Object.entries(channels)) {
    const file = Object.hasOwn(files, id) ? files[id] : undefined;
    const report = (code: string, message: string, severity: Diagnostic["severity"] = "error"): void => {
      diagnostics.push({ severity, code, message: `channel ${id}: ${message}`, ...(file === undefined ? {} : { file }) });
    };
    if (!CHANNEL_ID.test(id)) {
      report("invalid_channel_id", 'channel ids start with a letter or digit and contain only letters, digits, "_" or "-" (the file name is the id)');
    }
    if (!isRecord(def)) {
      report("invalid_channel", "the default export must be defineChannel({...}) (an object)");
      continue;
    }
    for (const key of Object.keys(def)) {
      if (!KNOWN_MEMBERS.has(key)) report("unknown_channel_member", `unknown member ${key} (ignored)`, "warning");
    }
    if (def.state !== undefined && !isJsonObject(def.state)) report("invalid_channel_state", "state must be a plain JSON object");
    if (def.auth !== undefined && !(Array.isArray(def.auth) && def.auth.every((policy) => typeof policy === "function"))) {
      report("invalid_channel_auth", "auth must be an array of auth policies, e.g. [localDevStrict(), bearerAuth(token)]");
    }
    for (const hook of ["onStart", "onStop", "onMessage"] as const) {
      if (def[hook] !== undefined && typeof def[hook] !== "function") report("invalid_channel_hook", `${hook} must be a function`);
    }
    if (def.onMessage !== undefined && id !== HTTP_CHANNEL) {
      report("invalid_channel_hook", "onMessage applies only to the built-in HTTP channel (bot/channels/http.ts)");
    }
    if (def.events !== undefined) {
      if (!isRecord(def.events)) report("invalid_channel_events", 'events must be an object of handlers keyed by event type or "*"');
      else {
        for (const [type, handler] of Object.entries(def.events)) {
          if (typeof handler !== "function") report("invalid_channel_events", `events["${type}"] must be a function`);
        }
      }
    }
    if (def.routes === undefined) continue;
    if (!Array.isArray(def.routes)) {
      report("invalid_channel_routes", "routes must be an array built with GET, POST, PUT, PATCH and DELETE");
      continue;
    }
    if (id === HTTP_CHANNEL && def.routes.length > 0) {
      report("invalid_channel_routes", "the HTTP channel override takes auth and onMessage only; put routes in another channel file");
    }
    const seen = new Set<string>();
    def.routes.forEach((route, index) => {
      for (const problem of routeProblems(route)) report(problem.code, `route ${describeRoute(route, index)}: ${problem.message}`);
      if (isRecord(route)) {
        const key = `${String(route.method)} ${normalizePath(route.path)}`;
        if (seen.has(key)) report("duplicate_channel_route", `route ${key} is declared twice`);
        seen.add(key);
      }
    });
  }
  return diagnostics;
}

// --- internals ---

interface Problem {
  code: string;
  message: string;
}

function routeProblems(route: unknown): Problem[] {
  if (!isRecord(route)) return [{ code: "invalid_channel_route", message: "must be built with GET, POST, PUT, PATCH or DELETE" }];
  const problems: Problem[] = [];
  const method = String(route.method);
  if (!METHODS.has(method)) problems.push({ code: "invalid_channel_route", message: `unknown method ${method}` });
  if (typeof route.path !== "string" || !(route.path === "" || route.path.startsWith("/")) || /[?#\s]/.test(route.path)) {
    problems.push({ code: "invalid_channel_route", message: "the path must start with / and hold no query, fragment or spaces" });
  }
  if (typeof route.handler !== "function") problems.push({ code: "invalid_channel_route", message: "handler must be a function" });
  if (method === "GET" && route.querySchema === undefined) {
    problems.push({ code: "missing_route_schema", message: "GET routes need a querySchema (an open object admits any query)" });
  }
  if (BODY_REQUIRED.has(method) && route.bodySchema === undefined) {
    problems.push({ code: "missing_route_schema", message: `${method} routes need a bodySchema (an open object or unknown schema admits any body)` });
  }
  for (const member of ["bodySchema", "querySchema"] as const) {
    const schema = route[member];
    if (schema !== undefined && !isStandardSchema(schema)) {
      problems.push({
        code: "invalid_route_schema",
        message: `${member} must be a schema-validator object (valibot, zod, arktype: Standard Schema); plain JSON Schema is not accepted`,
      });
    }
  }
  return problems;
}

function describeRoute(route: unknown, index: number): string {
  if (isRecord(route) && typeof route.method === "string" && typeof route.path === "string") return `${route.method} ${route.path}`;
  return `#${index + 1}`;
}

function normalizePath(path: unknown): string {
  return typeof path === "string" ? path.replace(/:[^/]+/g, ":") : String(path);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isJsonObject(value: unknown): boolean {
  if (!isRecord(value)) return false;
  try {
    JSON.stringify(value);
    return true;
  } catch {
    return false;
  }
}
