/**
 * What the definition root holds that the host does not load: every unknown folder or file is a
 * warning naming it, so nothing is skipped silently (docs/guide/agent-projects.md).
 * @module
 */
import type { Diagnostic } from "../src/base/definitions/project.ts";
import { didYouMean } from "../src/engine/project/unknown-keys.ts";
import type { ProjectSource } from "./project-source.ts";

/** Folders below `bot/` the host loads (`lib/` holds helper code and is not loaded as definitions). */
const KNOWN_FOLDERS = ["tools", "hooks", "skills", "subagents", "channels", "schedules", "mcp-connections", "sandbox", "extensions", "lib"];
/** Files directly in `bot/` the host loads; other code files there are helpers and left alone. */
const KNOWN_FILES = /^(agent|artifacts)\.m?[jt]s$|^instructions\.md$/;
/** Agent SDK folders this host has no counterpart for yet, and what to do instead. */
const UNSUPPORTED: Record<string, string> = {
  "host-connections": "host-only MCP connections are not supported; use mcp-connections/ (the model sees those too)",
  reminders: "reminders are created at run time here (host.reminders, builtinTools.reminders), not from files",
};

export async function layoutDiagnostics(source: ProjectSource, rootName: string): Promise<Diagnostic[]> {
  let entries;
  try {
    entries = await source.list(rootName);
  } catch {
    return [];
  }
  const diagnostics: Diagnostic[] = [];
  for (const entry of entries) {
    const name = entry.name;
    if (name.startsWith(".") || name === "node_modules" || /\.d\.m?ts$/.test(name)) continue;
    if (entry.kind === "directory") {
      if (KNOWN_FOLDERS.includes(name)) continue;
      const file = `${rootName}/${name}/`;
      if (Object.hasOwn(UNSUPPORTED, name)) {
        diagnostics.push({ severity: "warning", code: "unsupported_folder", message: `${file} is not loaded: ${UNSUPPORTED[name]}`, file });
        continue;
      }
      const suggestion = didYouMean(name, KNOWN_FOLDERS);
      diagnostics.push({
        severity: "warning",
        code: "unknown_folder",
        message: `${file} is not loaded${suggestion ? ` (did you mean ${rootName}/${suggestion}/?)` : ""}: the host loads ${KNOWN_FOLDERS.map((f) => `${f}/`).join(", ")}`,
        file,
      });
    } else if (!KNOWN_FILES.test(name) && !KNOWN_FOLDERS.includes(name) && !/\.m?[jt]s$/.test(name)) {
      // Code files may be helpers the definitions import; anything else here is never read.
      const file = `${rootName}/${name}`;
      const suggestion = /\.md$/i.test(name) ? didYouMean(name, ["instructions.md"]) : undefined;
      diagnostics.push({
        severity: "warning",
        code: "unknown_file",
        message: `${file} is not loaded${suggestion ? ` (did you mean ${rootName}/${suggestion}?)` : ""}: ${rootName}/ holds agent.ts, instructions.md, artifacts.ts and the definition folders`,
        file,
      });
    }
  }
  return diagnostics;
}
