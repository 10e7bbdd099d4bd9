/** The exports map is a contract: every subpath loads and exposes exactly the names listed here. */
import { readFile, readdir } from "node:fs/promises";
import { describe, expect, it } from "vitest";

const pkg = JSON.parse(await readFile(new URL("../package.json", import.meta.url), "utf8")) as { exports: Record<string, string> };

const expected: Record<string, string[]> = {
  ".": ["HTTPError", "createHost", "defineAgent", "prompt"],
  "./testing": ["createScriptedModel"],
  "./tools": ["defineTool"],
  "./hooks": ["defineHook"],
  "./artifacts": ["defineArtifacts"],
  "./schedules": ["defineSchedule"],
  "./evals": ["defineEval", "defineEvalConfig", "includes", "matches", "satisfies"],
  "./skills": ["defineSkill"],
  "./connections": ["defineConnection"],
  "./channels": ["allowAll", "bearerAuth", "localDev", "localDevStrict", "loopbackOnly"],
  "./storage": [
    "LogConflictError",
    "RecordConflictError",
    "StorageUnavailableError",
    "assertKey",
    "assertPrefix",
    "createMemoryStorage",
    "updateRecord",
  ],
  "./storage/sqlite": ["createSqliteStorage", "openNodeSqlite"],
  "./node": ["createHost", "readPlaygroundSite", "serveNode"],
};

describe("package exports", () => {
  it("lists exactly the documented subpaths", () => {
    expect(Object.keys(pkg.exports).sort()).toEqual([...Object.keys(expected), "./package.json"].sort());
  });

  for (const [subpath, names] of Object.entries(expected)) {
    it(`${subpath} exports ${names.join(", ")}`, async () => {
      const module = (await import(new URL(`../${pkg.exports[subpath]}`, import.meta.url).href)) as Record<string, unknown>;
      expect(Object.keys(module).sort()).toEqual([...names].sort());
    });
  }

  it("keeps the core free of runtime-specific imports", async () => {
    const srcDir = new URL("../src/", import.meta.url);
    const files = (await readdir(srcDir, { recursive: true })).filter((file) => file.endsWith(".ts"));
    expect(files.length).toBeGreaterThan(20);
    const offenders: string[] = [];
    for (const file of files) {
      const text = await readFile(new URL(file, srcDir), "utf8");
      if (/(from\s+|import\(\s*)["'](node:|fs["'/]|path["']|bun["':]|cloudflare:)/.test(text)) offenders.push(file);
    }
    expect(offenders).toEqual([]);
  });
});
