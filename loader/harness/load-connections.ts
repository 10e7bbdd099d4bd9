/**
 * Loads `bot/mcp-connections/<name>.ts`: `export default defineConnection({url, headers})` or
 * `({command, args, env})`. The file name is the server name the `mcp` tool uses.
 * @module
 */
import type { ConnectionDefinition, HttpConnectionDefinition } from "../../src/base/definitions/harness.ts";
import type { Diagnostic } from "../../src/base/definitions/project.ts";
import { unknownKeyDiagnostics } from "../../src/engine/project/unknown-keys.ts";
import type { ProjectSource } from "../project-source.ts";
import { errorMessage } from "../../src/base/errors.ts";

const NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;
const MODULE = /\.(m?[jt]s)$/;

/** The members of `defineConnection` (HTTP and stdio forms). */
const CONNECTION_KEYS = ["url", "headers", "oauth", "command", "args", "env", "cwd", "description"];

export async function loadConnections(source: ProjectSource, rootName: string, diagnostics: Diagnostic[]): Promise<Record<string, ConnectionDefinition> | undefined> {
  const folder = `${rootName}/mcp-connections`;
  if (!source.exists(folder)) return undefined;
  const connections: Record<string, ConnectionDefinition> = {};
  const files = (await source.list(folder))
    .filter((e) => e.kind === "file" && MODULE.test(e.name) && !e.name.startsWith("_") && !e.name.startsWith(".") && !/\.d\.m?ts$|\.(test|spec)\./.test(e.name))
    .map((e) => e.name)
    .sort();
  for (const fileName of files) {
    const name = fileName.replace(MODULE, "");
    const file = `${folder}/${fileName}`;
    const error = (code: string, message: string): void => {
      diagnostics.push({ severity: "error", code, message, file });
    };
    if (!NAME.test(name)) {
      error("invalid_connection_name", `connection name ${JSON.stringify(name)} must be letters, digits, "_" or "-" (at most 64)`);
      continue;
    }
    if (connections[name]) {
      error("duplicate_connection", `connection ${name} is defined twice`);
      continue;
    }
    let value: unknown;
    try {
      value = (await source.importModule(file)).default;
    } catch (cause) {
      error("connection_import_failed", `cannot load ${file}: ${errorMessage(cause)}`);
      continue;
    }
    const checked = checkConnection(value);
    if (typeof checked === "string") error("invalid_connection", `${file}: ${checked}`);
    else {
      connections[name] = checked;
      // SAFETY: checkConnection accepted it as an object.
      diagnostics.push(...unknownKeyDiagnostics(value as Record<string, unknown>, CONNECTION_KEYS, `connection ${name}`, file));
    }
  }
  return connections;
}

/** The connection, or what is wrong with it. */
export function checkConnection(value: unknown): ConnectionDefinition | string {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return "must export default defineConnection({ url } | { command })";
  const def = value as Record<string, unknown>; // SAFETY: a non-null object; members checked below
  if ("agent" in def) return "peer-agent connections ({agent}) are not supported by this host";
  if (def.description !== undefined && typeof def.description !== "string") return "description must be a string";
  const description = typeof def.description === "string" ? { description: def.description } : {};
  if (typeof def.url === "string") {
    let url: URL;
    try {
      url = new URL(def.url);
    } catch {
      return `url is not a URL: ${def.url}`;
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") return "url must be http: or https:";
    if (def.headers !== undefined && !isStringRecord(def.headers)) return "headers must map names to strings";
    const oauth = checkOAuth(def.oauth);
    if (typeof oauth === "string") return oauth;
    return { url: def.url, ...(def.headers ? { headers: def.headers as Record<string, string> } : {}), ...(oauth ? { oauth } : {}), ...description };
  }
  if (typeof def.command === "string" && def.command !== "") {
    if (def.oauth !== undefined && def.oauth !== false) return "oauth applies to HTTP connections ({url}) only";
    if (def.args !== undefined && !(Array.isArray(def.args) && def.args.every((a) => typeof a === "string"))) return "args must be a list of strings";
    if (def.env !== undefined && !isStringRecord(def.env)) return "env must map names to strings";
    if (def.cwd !== undefined && typeof def.cwd !== "string") return "cwd must be a string";
    return {
      command: def.command,
      ...(def.args ? { args: def.args as string[] } : {}),
      ...(def.env ? { env: def.env as Record<string, string> } : {}),
      ...(typeof def.cwd === "string" ? { cwd: def.cwd } : {}),
      ...description,
    };
  }
  return "needs url (HTTP) or command (stdio)";
}

/** `oauth: true | {scopes, clientId}` (docs/guide/mcp.md "Connections that need OAuth"), or what is wrong with it. */
function checkOAuth(value: unknown): HttpConnectionDefinition["oauth"] | false | string {
  if (value === undefined || value === false) return false;
  if (value === true) return true;
  if (typeof value !== "object" || value === null || Array.isArray(value)) return "oauth must be true or { scopes?, clientId? }";
  const { scopes, clientId, ...rest } = value as Record<string, unknown>; // SAFETY: a non-null object; members checked below
  const unknown = Object.keys(rest);
  if (unknown.length > 0) return `oauth has unknown members: ${unknown.join(", ")} (it takes scopes and clientId)`;
  if (scopes !== undefined && !(Array.isArray(scopes) && scopes.every((s) => typeof s === "string" && s !== "" && !/\s/.test(s)))) return "oauth.scopes must be a list of scope names";
  if (clientId !== undefined && (typeof clientId !== "string" || clientId === "")) return "oauth.clientId must be a non-empty string";
  return { ...(scopes ? { scopes: scopes as string[] } : {}), ...(typeof clientId === "string" ? { clientId } : {}) };
}

function isStringRecord(value: unknown): boolean {
  return typeof value === "object" && value !== null && !Array.isArray(value) && Object.values(value).every((v) => typeof v === "string");
}
