/**
 * The harness file tools `read`, `edit` and `ls`, confined to the session workspace.
 * @module
 */
import { mkdir, readFile, readdir, stat, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import type { HarnessInputs, HarnessOutcome } from "../../src/base/ports/runtime.ts";
import { resolveInWorkspace } from "./paths.ts";

/** Lines `read` returns when the model gives no limit. */
const DEFAULT_READ_LINES = 2000;
/** Characters `read` returns at most; the rest is announced, not sent. */
const MAX_READ_CHARS = 256 * 1024;
/** Files larger than this are not read whole into memory by `read` or `edit`. */
const MAX_FILE_BYTES = 10 * 1024 * 1024;
/** Entries `ls` lists at most. */
const MAX_LS_ENTRIES = 1000;

export async function readTool(cwd: string, input: HarnessInputs["read"]): Promise<HarnessOutcome> {
  const target = await resolveInWorkspace(cwd, input.path, "read");
  const info = await stat(target.path);
  if (info.isDirectory()) return fail(`${input.path} is a folder; use ls`);
  if (info.size > MAX_FILE_BYTES) return fail(`${input.path} is ${info.size} bytes, more than read handles (${MAX_FILE_BYTES}); use shell (head, sed -n) for parts of it`);
  const bytes = await readFile(target.path);
  if (bytes.includes(0)) return fail(`${input.path} is a binary file`);
  const lines = bytes.toString("utf8").split("\n");
  if (lines.at(-1) === "") lines.pop();
  const first = (input.offset ?? 1) - 1;
  const limit = input.limit ?? DEFAULT_READ_LINES;
  if (first > 0 && first >= lines.length) return fail(`${input.path} has ${lines.length} lines; offset ${input.offset} is past the end`);
  let text = "";
  let end = first;
  for (; end < Math.min(lines.length, first + limit); end++) {
    const next = `${lines[end]}\n`;
    if (text.length + next.length > MAX_READ_CHARS && end > first) break;
    text += next;
  }
  if (first === 0 && end >= lines.length) return ok(text);
  return ok(`${text}[lines ${first + 1}-${end} of ${lines.length}${end < lines.length ? `; read on with offset ${end + 1}` : ""}]`);
}

export async function editTool(cwd: string, input: HarnessInputs["edit"]): Promise<HarnessOutcome> {
  const target = await resolveInWorkspace(cwd, input.path, "write");
  const existing = await stat(target.path).catch(() => undefined);
  if (existing?.isDirectory()) return fail(`${input.path} is a folder`);
  if (input.oldText === undefined) {
    await mkdir(dirname(target.path), { recursive: true });
    await writeFile(target.path, input.newText);
    return ok(`${existing ? "wrote" : "created"} ${target.relative} (${Buffer.byteLength(input.newText)} bytes)`);
  }
  if (!existing) return fail(`${input.path} does not exist (omit oldText to create it)`);
  if (existing.size > MAX_FILE_BYTES) return fail(`${input.path} is larger than edit handles (${MAX_FILE_BYTES} bytes)`);
  const text = await readFile(target.path, "utf8");
  const at = text.indexOf(input.oldText);
  if (at < 0) return fail(`oldText was not found in ${input.path}`);
  if (text.indexOf(input.oldText, at + 1) >= 0) return fail(`oldText occurs more than once in ${input.path}; include more surrounding text`);
  await writeFile(target.path, text.slice(0, at) + input.newText + text.slice(at + input.oldText.length));
  return ok(`edited ${target.relative}`);
}

export async function lsTool(cwd: string, input: HarnessInputs["ls"]): Promise<HarnessOutcome> {
  const target = await resolveInWorkspace(cwd, input.path ?? ".", "read");
  const info = await stat(target.path);
  if (!info.isDirectory()) return ok(target.relative);
  const entries = (await readdir(target.path, { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : 1));
  const names = entries.slice(0, MAX_LS_ENTRIES).map((entry) => (entry.isDirectory() ? `${entry.name}/` : entry.isSymbolicLink() ? `${entry.name}@` : entry.name));
  if (entries.length > MAX_LS_ENTRIES) names.push(`[${entries.length - MAX_LS_ENTRIES} more entries]`);
  return ok(names.length === 0 ? "(empty)" : names.join("\n"));
}

// --- internals ---

const ok = (output: string): HarnessOutcome => ({ output, isError: false });
const fail = (output: string): HarnessOutcome => ({ output, isError: true });
