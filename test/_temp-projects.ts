/**
 * Agent projects written to a temp directory outside the repository, so `agent-serve` and host
 * dependencies resolve only through the loader's hooks, as for a real project without node_modules.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll } from "vitest";
import type { Diagnostic } from "../src/base/definitions/project.ts";

/** A project factory for one test file; the files are removed after the file's tests. */
export function tempProjects(prefix: string): (files: Record<string, string>) => string {
  const base = mkdtempSync(join(tmpdir(), `agent-serve-${prefix}-`));
  afterAll(() => rmSync(base, { recursive: true, force: true }));
  let counter = 0;
  return (files) => {
    const dir = join(base, `p${++counter}`);
    const all = { "package.json": JSON.stringify({ name: `p${counter}`, type: "module" }), "bot/instructions.md": "Be brief.\n", ...files };
    for (const [file, text] of Object.entries(all)) {
      mkdirSync(dirname(join(dir, file)), { recursive: true });
      writeFileSync(join(dir, file), text);
    }
    return dir;
  };
}

/** Diagnostics as sortable `severity:code:file` lines. */
export const summarizeDiagnostics = (diagnostics: Diagnostic[]): string[] =>
  diagnostics.map((d) => `${d.severity}:${d.code}:${d.file ?? ""}`).sort();
