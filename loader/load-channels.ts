/**
 * Loads `bot/channels/<id>.ts` (docs/guide/channels.md): the file name is the channel id and the
 * route prefix `/v1/channels/<id>`. Import failures and invalid definitions become error
 * diagnostics naming the file (and the route); only valid channels are mounted.
 * @module
 */
import type { ChannelDefinition } from "../src/base/definitions/channels.ts";
import { errorMessage } from "../src/base/errors.ts";
import { validateChannels } from "../src/features/channels/validate.ts";
import type { Diagnostic } from "../src/base/definitions/project.ts";
import type { ProjectSource } from "./project-source.ts";

const EXTENSIONS = [".ts", ".mts", ".js", ".mjs"];

/** The channels under `<root>/<rootName>/channels/`, or undefined when the folder does not exist. */
export async function loadChannels(source: ProjectSource, rootName: string, diagnostics: Diagnostic[]): Promise<Record<string, ChannelDefinition> | undefined> {
  const folder = `${rootName}/channels`;
  if (!source.exists(folder)) return undefined;
  const defs: Record<string, unknown> = {};
  const files: Record<string, string> = {};
  let names: string[];
  try {
    names = (await source.list(folder))
      .filter((entry) => entry.kind === "file" && isDefinitionFile(entry.name))
      .map((entry) => entry.name)
      .sort();
  } catch (error) {
    diagnostics.push({ severity: "error", code: "channels_unreadable", message: `cannot read ${folder}/: ${errorMessage(error)}`, file: `${folder}/` });
    return {};
  }
  for (const name of names) {
    const id = name.replace(/\.m?[jt]s$/, "");
    const file = `${folder}/${name}`;
    if (files[id] !== undefined) {
      diagnostics.push({ severity: "error", code: "duplicate_channel", message: `channel ${id} is defined twice: ${files[id]} and ${file}`, file });
      continue;
    }
    files[id] = file;
    try {
      defs[id] = (await source.importModule(file)).default;
    } catch (error) {
      diagnostics.push({ severity: "error", code: "channel_import_failed", message: `cannot load ${file}: ${errorMessage(error)}`, file });
    }
  }
  const found = validateChannels(defs, files);
  diagnostics.push(...found);
  const broken = new Set(found.filter((d) => d.severity === "error").map((d) => d.file));
  const channels: Record<string, ChannelDefinition> = {};
  for (const [id, def] of Object.entries(defs)) {
    // SAFETY: validateChannels reported no error for this file, so it has the definition's shape.
    if (!broken.has(files[id])) channels[id] = def as ChannelDefinition;
  }
  return channels;
}

// --- internals ---

/** Names starting with `_` or `.`, declaration files and colocated tests are helpers, not channels. */
function isDefinitionFile(name: string): boolean {
  if (name.startsWith("_") || name.startsWith(".")) return false;
  if (!EXTENSIONS.some((ext) => name.endsWith(ext))) return false;
  return !/\.d\.m?ts$/.test(name) && !/\.(test|spec)\.m?[jt]s$/.test(name);
}
