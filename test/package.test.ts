/** The exports map is a contract: every subpath loads and exposes exactly the names listed here. */
import { readFile, readdir } from "node:fs/promises";
import { describe, expect, it } from "vitest";

import { ENTRIES, exportsMap } from "../scripts/entries.mjs";

type Conditions = { "agent-serve-source": string; types: string; import: string };
const pkg = JSON.parse(await readFile(new URL("../package.json", import.meta.url), "utf8")) as {
  exports: Record<string, Conditions | string>;
  files: string[];
  bin: Record<string, string>;
};

const expected: Record<string, string[]> = {
  ".": [
    "HTTPError",
    "createHost",
    "defineAgent",
    "defineArtifacts",
    "defineChannel",
    "defineConnection",
    "defineEval",
    "defineEvalConfig",
    "defineExtension",
    "defineHook",
    "defineSchedule",
    "defineSkill",
    "defineTool",
    "plainMessage",
    "prompt",
  ],
  "./testing": ["createScriptedModel"],
  "./tools": ["a2aAgent", "defineTool"],
  "./hooks": ["defineHook"],
  "./memory": ["memoryHook"],
  "./extensions": ["defineExtension"],
  "./artifacts": ["defineArtifacts"],
  "./schedules": ["defineSchedule"],
  "./evals": ["defineEval", "defineEvalConfig", "includes", "matches", "satisfies"],
  "./events": ["EVENT_FORMAT_VERSION", "SETTLING_EVENTS", "emptyReplyState", "eventEnvelopeSchema", "followLog", "foldReply", "isEvent", "parseEventLine"],
  "./inspect": [
    "HARNESS_TOOL_NAMES",
    "SCRIPTED_FALLBACK_CODE",
    "UNSANDBOXED_SHELL_CODE",
    "UNSANDBOXED_SHELL_MESSAGE",
    "defaultModelId",
    "describeChannels",
    "effectiveModel",
    "hasUnsandboxedShell",
    "inspectProject",
    "missingModelSetup",
    "normalizeModelSpec",
    "resolveAllowlist",
    "routeModelId",
  ],
  "./skills": ["defineSkill"],
  "./connections": ["defineConnection", "createMcpOAuthTokens", "withTokens", "REFRESH_MARGIN_MS"],
  "./channels": ["DELETE", "GET", "PATCH", "POST", "PUT", "allowAll", "bearerAuth", "defineChannel", "isLoopbackAddress", "localDev", "localDevStrict", "loopbackOnly"],
  "./channels/slack": ["SLACK_EVENTS_PATH", "SLACK_SIGNATURE_WINDOW_SECONDS", "classifySlackEvent", "signSlackRequest", "slackChannel", "verifySlackSignature"],
  "./channels/github": [
    "GITHUB_WEBHOOK_PATH",
    "defaultGitHubAuth",
    "githubChannel",
    "parseGitHubContinuationKey",
    "parseGitHubPrContinuationKey",
    "signGitHubPayload",
    "toGitHubContinuationKey",
    "verifyGitHubSignature",
  ],
  "./storage": [
    "LogConflictError",
    "RecordConflictError",
    "StorageUnavailableError",
    "assertKey",
    "assertPrefix",
    "copyStorage",
    "createMemoryStorage",
    "updateRecord",
  ],
  "./storage/sqlite": ["createSqliteStorage", "openNodeSqlite"],
  "./storage/redis": ["createRedisStorage"],
  "./storage/postgres": ["createPostgresStorage"],
  "./node": ["createHost", "createProjectHost", "loadProject", "nodeRuntime", "readPlaygroundSite", "serve", "serveNode", "serveProject"],
  "./bun": ["bunRuntime", "createHost", "createProjectHost", "loadProject", "serve", "serveProject"],
  "./deno": ["createHost", "createProjectHost", "denoRuntime", "loadProject", "serve", "serveProject"],
  "./cloudflare": ["WORKERS_LIMITS", "createCloudflareWorker", "createDurableObjectStorage"],
};

describe("package exports", () => {
  it("lists exactly the documented subpaths", () => {
    expect(Object.keys(pkg.exports).sort()).toEqual([...Object.keys(expected), "./package.json"].sort());
  });

  it("is generated from scripts/entries.mjs: types and import in dist/, sources only under their own condition", () => {
    expect(pkg.exports).toEqual(exportsMap());
    for (const [subpath, source] of Object.entries(ENTRIES)) {
      const conditions = pkg.exports[subpath] as Conditions;
      // Order matters: the first matching condition wins, and only a checkout asks for the sources.
      expect(Object.keys(conditions)).toEqual(["agent-serve-source", "types", "import"]);
      expect(conditions.types).toBe(`./dist/${source.replace(/\.ts$/, ".d.ts")}`);
      expect(conditions.import).toBe(`./dist/${source.replace(/\.ts$/, ".js")}`);
    }
  });

  it("ships dist/, the bin and the files the server reads at runtime, not sources or tests", () => {
    expect(pkg.bin).toEqual({ "agent-serve": "./bin/agent-serve.mjs" });
    expect(pkg.files).toEqual(
      expect.arrayContaining(["dist", "bin", "playground/index.html", "playground/assets", "docs/index.md", "docs/guide", "docs/design", "README.md"]),
    );
    for (const excluded of ["src", "test", "bench", "cli", "adapters", "loader", "drivers", "examples", "scripts"]) {
      expect(pkg.files).not.toContain(excluded);
    }
  });

  for (const [subpath, names] of Object.entries(expected)) {
    it(`${subpath} exports ${names.join(", ")}`, async () => {
      const source = (pkg.exports[subpath] as Conditions)["agent-serve-source"];
      const module = (await import(new URL(`../${source}`, import.meta.url).href)) as Record<string, unknown>;
      expect(Object.keys(module).sort()).toEqual([...names].sort());
    });
  }

  it("offers every define* of every subpath on the root entry too (issue 34: defineExtension was missing)", async () => {
    // Each subpath's list is checked against its module above, so a define* added to any entry
    // fails here until the root offers it as well.
    const root = new Set(expected["."]);
    const defines = Object.values(expected).flat().filter((name) => /^define[A-Z]/.test(name));
    expect(defines.filter((name) => !root.has(name))).toEqual([]);
  });

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

  it("keeps the Workers adapter and its storage driver free of node:* and cloudflare:* imports", async () => {
    const root = new URL("../", import.meta.url);
    const files = ["adapters/cloudflare.ts", "drivers/sqlite/schema.ts"];
    for (const dir of ["adapters/cloudflare/", "drivers/durable-object/"]) {
      files.push(...(await readdir(new URL(dir, root))).filter((file) => file.endsWith(".ts")).map((file) => `${dir}${file}`));
    }
    expect(files.length).toBeGreaterThan(8);
    const offenders: string[] = [];
    for (const file of files) {
      const text = await readFile(new URL(file, root), "utf8");
      if (/(from\s+|import\(\s*)["'](node:|cloudflare:)/.test(text)) offenders.push(file);
    }
    expect(offenders).toEqual([]);
  });
});
