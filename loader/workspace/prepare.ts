/**
 * Brings a session workspace up to the agent's workspace plan before a local turn
 * (docs/design/local-runtime.md "Preparation"): the host's block of `AGENTS.md`, skills, agent-tool
 * scripts, the seed files (once, into a fresh workspace, never over existing files) and the
 * per-send files.
 *
 * A marker (`.agent-serve/workspace.json`) records the plan's fingerprint and what was generated,
 * so a later turn with an unchanged plan costs one small read, and a changed plan removes the
 * generated files it no longer has.
 * @module
 */
import { constants } from "node:fs";
import { chmod, copyFile, lstat, mkdir, readFile, readdir, rm, rmdir, writeFile } from "node:fs/promises";
import { dirname, join, posix } from "node:path";
import type { WorkspacePlan } from "../../src/base/ports/runtime.ts";
import { KeyedLock } from "../../src/base/keyed-lock.ts";
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
        if (!marker && plan.seedDir) await copyTree(plan.seedDir, dir, false);
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
    if (keep.has(stale)) continue;
    await rm(await inside(dir, stale), { recursive: true, force: true });
    await pruneEmptyParents(dir, stale);
  }
  // Host-owned folders are checked once: a link there could send every write elsewhere.
  for (const root of new Set(generated.map(ownedRoot))) await inside(dir, root);
  // Each skill folder is made anew, so nothing planted inside it (a link, a stale file) survives.
  const skillFolders = new Set(generated.map(skillFolder).filter((folder): folder is string => folder !== undefined));
  await Promise.all([...skillFolders].map((folder) => rm(join(dir, folder), { recursive: true, force: true })));
  const folders = new Set(Object.keys(plan.files).map((path) => posix.dirname(path)).filter((folder) => folder !== "."));
  await Promise.all([...folders].map((folder) => mkdir(join(dir, folder), { recursive: true })));
  await Promise.all(Object.entries(plan.files).map(([path, text]) => writeFile(join(dir, path), text)));
  await Promise.all(plan.executables.map((path) => chmod(join(dir, path), 0o755)));
  await Promise.all(plan.copies.map((copy) => copyTree(copy.from, join(dir, copy.to), true)));
  await writeAgentsMd(dir, plan.agentsMd);
  const marker: Marker = { fingerprint: plan.fingerprint, generated };
  const markerPath = join(dir, MARKER_FILE);
  await mkdir(dirname(markerPath), { recursive: true });
  await writeFile(markerPath, `${JSON.stringify(marker)}\n`);
}

/** `.cursor/skills` for skill files, `.agent-serve/tools` for scripts, the path itself otherwise. */
function ownedRoot(path: string): string {
  const parts = path.split("/");
  return parts.length > 2 ? parts.slice(0, 2).join("/") : path;
}

/** `.cursor/skills/<name>` for a path inside a skill folder. */
function skillFolder(path: string): string | undefined {
  const parts = path.split("/");
  return parts[0] === ".cursor" && parts[1] === "skills" && parts.length >= 3 ? parts.slice(0, 3).join("/") : undefined;
}

/**
 * Copies the tree `from` into the folder `to`. Without `overwrite`, existing files are kept and a
 * link found where a folder should be is not entered (seed files never land outside the workspace).
 */
async function copyTree(from: string, to: string, overwrite: boolean): Promise<void> {
  await mkdir(to, { recursive: true });
  await copyEntries(from, to, overwrite);
}

async function copyEntries(from: string, to: string, overwrite: boolean): Promise<void> {
  const entries = await readdir(from, { withFileTypes: true });
  await Promise.all(
    entries.map(async (entry) => {
      const source = join(from, entry.name);
      const target = join(to, entry.name);
      if (entry.isDirectory()) {
        try {
          await mkdir(target);
        } catch (error) {
          if (!hasCode(error, "EEXIST")) throw error;
          if (!(await lstat(target)).isDirectory()) return;
        }
        return copyEntries(source, target, overwrite);
      }
      if (!entry.isFile()) return;
      try {
        await copyFile(source, target, overwrite ? 0 : constants.COPYFILE_EXCL);
      } catch (error) {
        if (!hasCode(error, "EEXIST")) throw error;
      }
    }),
  );
}

function hasCode(error: unknown, code: string): boolean {
  return typeof error === "object" && error !== null && "code" in error && error.code === code;
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

/** Removes the folders of a removed generated path that it left empty (a dropped skill's folder). */
async function pruneEmptyParents(dir: string, path: string): Promise<void> {
  for (let parent = posix.dirname(path); parent !== "." && parent !== "/"; parent = posix.dirname(parent)) {
    try {
      await rmdir(join(dir, parent));
    } catch {
      return;
    }
  }
}

/** A generated path, refused if the workspace has a link that would send it elsewhere. */
async function inside(dir: string, path: string): Promise<string> {
  return (await resolveInWorkspace(dir, path, "write")).path;
}
