/**
 * The `grep` search, run in a worker thread: a model-written regular expression can backtrack
 * for minutes, and a worker can be terminated where the host's event loop could not.
 * @module
 */
import { open, stat } from "node:fs/promises";
import { parentPort, workerData } from "node:worker_threads";
import { walkFiles } from "./walk.ts";

export interface GrepJob {
  /** Absolute file or folder to search. */
  target: string;
  /** Its workspace-relative path. */
  prefix: string;
  isFile: boolean;
  pattern: string;
  /** Source of the glob filter's regular expression. */
  glob: string | null;
  maxMatches: number;
  maxEntries: number;
  maxFileBytes: number;
  maxLineChars: number;
}

export interface GrepResult {
  lines: string[];
  /** Stopped at maxMatches or maxEntries. */
  truncated: boolean;
  filesSearched: number;
}

const job = workerData as GrepJob; // SAFETY: the only sender is search.ts, which builds a GrepJob
const regex = new RegExp(job.pattern);
const filter = job.glob === null ? undefined : new RegExp(job.glob);
const lines: string[] = [];
let filesSearched = 0;

async function searchFile(relative: string, absolute: string): Promise<boolean> {
  if (filter && !filter.test(relative)) return true;
  const info = await stat(absolute).catch(() => undefined);
  if (!info || info.size > job.maxFileBytes) return true;
  const handle = await open(absolute, "r");
  let text: string;
  try {
    const bytes = await handle.readFile();
    if (bytes.subarray(0, 8192).includes(0)) return true;
    text = bytes.toString("utf8");
  } finally {
    await handle.close();
  }
  filesSearched++;
  const fileLines = text.split("\n");
  for (let i = 0; i < fileLines.length; i++) {
    const line = fileLines[i]!;
    if (!regex.test(line)) continue;
    const shown = line.length > job.maxLineChars ? `${line.slice(0, job.maxLineChars)}…` : line;
    lines.push(`${relative}:${i + 1}:${shown}`);
    if (lines.length >= job.maxMatches) return false;
  }
  return true;
}

let complete = true;
if (job.isFile) complete = await searchFile(job.prefix, job.target);
else complete = (await walkFiles(job.target, job.prefix, { maxEntries: job.maxEntries }, searchFile)).complete;
const result: GrepResult = { lines, truncated: !complete, filesSearched };
parentPort?.postMessage(result);
