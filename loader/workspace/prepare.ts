/**
 * Brings a session workspace up to the agent's workspace plan before a local turn (SPEC
 * "Session"): the host's block of `AGENTS.md`, skills, agent-tool scripts, the seed files (once,
 * into a fresh workspace, never over existing files) and the per-send files.
 *
 * A marker (`.agent-serve/workspace.json`) records the plan's fingerprint and what was generated,
 * so a later turn with an unchanged plan costs one small read, and a changed plan removes the
 * generated files it no longer has.
 * @module
 */
import { chmod, cp, mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import type { WorkspacePlan } from "../../src/runtime/types.ts";
import { KeyedLock } from "../../src/sessions/keyed-lock.ts";
import { resolveInWorkspace } from "./paths.ts";

export const MARKER_FILE = ".agent-serve/workspace.json";
const BEGIN = "<!-- agent-serve:begin (generated from the agent's instructions, skills and agent tools; edits inside this block are replaced) -->";
const END = "<!-- agent-serve:end -->";

interface Marker {
  fingerprint: string;
  /** Workspace-relative paths the host generated (files and copied folders). */
  generated: string[];
}

export type PrepareWorkspace = (dir: string, plan: WorkspacePlan, files?: Record<string, string>) => Promise<void>;

export function createWorkspacePreparer(): PrepareWorkspace {
  // Sessions sharing one workspace (local.workspaceDir) may start turns at once.
  const lock = new KeyedLock();
  return (dir, plan, files = {}) =>
    lock.run(dir, async () => {
      const marker = await readMarker(dir);
      if (marker?.fingerprint !== plan.fingerprint) {
        if (!marker && plan.seedDir) await cp(plan.seedDir, dir, { recursive: true, force: false, errorOnExist: false });
        await writeGenerated(dir, plan, marker);
      }
      for (const [path, text] of Object.entries(files)) {
        const target = await resolveInWorkspace(dir, path, "write");
        await mkdir(dirname(target.path), { recursive: true });
        await writeFile(target.path, text);
      }
    });
}

// --- internals ---

async function writeGenerated(dir: string, plan: WorkspacePlan, previous: Marker | undefined): Promise<void> {
  const generated = [...Object.keys(plan.files), ...plan.copies.map((copy) => copy.to)];
  const keep = new Set(generated);
  for (const stale of previous?.generated ?? []) {
    if (!keep.has(stale)) await rm(await inside(dir, stale), { recursive: true, force: true });
  }
  for (const [path, text] of Object.entries(plan.files)) {
    const target = await inside(dir, path);
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, text);
  }
  for (const path of plan.executables) await chmod(await inside(dir, path), 0o755);
  for (const copy of plan.copies) {
    const target = await inside(dir, copy.to);
    await rm(target, { recursive: true, force: true });
    await mkdir(dirname(target), { recursive: true });
    await cp(copy.from, target, { recursive: true });
  }
  await writeAgentsMd(dir, plan.agentsMd);
  const marker: Marker = { fingerprint: plan.fingerprint, generated };
  const markerPath = join(dir, MARKER_FILE);
  await mkdir(dirname(markerPath), { recursive: true });
  await writeFile(markerPath, `${JSON.stringify(marker)}\n`);
}

/** Replaces the host's block of AGENTS.md, keeping whatever else the file holds. */
async function writeAgentsMd(dir: string, content: string): Promise<void> {
  const path = await inside(dir, "AGENTS.md");
  const block = `${BEGIN}\n${content.trim()}\n${END}\n`;
  const existing = await readFile(path, "utf8").catch(() => undefined);
  let text = block;
  if (existing !== undefined) {
    const start = existing.indexOf(BEGIN.slice(0, BEGIN.indexOf(" (")));
    const end = existing.indexOf(END, Math.max(start, 0));
    if (start >= 0 && end >= 0) text = existing.slice(0, start) + block + existing.slice(end + END.length).replace(/^\n/, "");
    else text = `${existing.replace(/\s*$/, "")}\n\n${block}`;
  }
  if (text !== existing) await writeFile(path, text);
}

async function readMarker(dir: string): Promise<Marker | undefined> {
  try {
    const value = JSON.parse(await readFile(join(dir, MARKER_FILE), "utf8")) as Partial<Marker>;
    if (typeof value.fingerprint !== "string" || !Array.isArray(value.generated)) return undefined;
    return { fingerprint: value.fingerprint, generated: value.generated.filter((path): path is string => typeof path === "string") };
  } catch {
    return undefined;
  }
}

/** A generated path, refused if the workspace has a link that would send it elsewhere. */
async function inside(dir: string, path: string): Promise<string> {
  return (await resolveInWorkspace(dir, path, "write")).path;
}
