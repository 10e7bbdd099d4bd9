/**
 * Extensions (docs/design/agent-sdk-compatibility.md): `bot/extensions/<ns>.ts` mounts tools,
 * skills, instructions, connections, hooks, schedules, subagents, artifact kinds and seeds as
 * `<ns>__<name>`; a configurable extension's config is validated at load.
 */
import { describe, expect, it } from "vitest";
import { loadProject } from "../loader/load-project.ts";
import { createHost } from "../src/host/host.ts";
import { createMemoryStorage } from "../src/base/storage/memory.ts";
import { run, scratchDir } from "./_cli-io.ts";
import { quietLogger } from "./_harness.ts";
import { summarizeDiagnostics, tempProjects } from "./_temp-projects.ts";

const project = tempProjects("extensions");
const { env } = scratchDir("extensions-cli");

/** A configurable extension in the project's lib/, mounted by bot/extensions/ci.ts. */
const CI_LIB = `import { defineExtension } from "agent-serve/extensions";
import * as v from "valibot";

export const ci = defineExtension({
  configSchema: v.object({ org: v.pipe(v.string(), v.minLength(1)), token: v.optional(v.string()) }),
  setup: ({ org }) => ({
    name: "CI",
    description: "Build status for " + org,
    tools: {
      status: {
        description: "The CI status of a repository",
        inputSchema: v.object({ repo: v.string() }),
        effect: "read",
        execute: async ({ repo }, ctx) => {
          await ctx.host.kv.put("last-repo", repo);
          return { org, repo, status: "green" };
        },
      },
    },
    skills: { triage: "Triage a red build\\n\\n1. Read the log.\\n2. Find the first failure." },
    instructions: "Check CI with ci__status before answering about builds.",
    connections: { docs: { url: "https://example.com/mcp", description: "CI docs" } },
    hooks: { audit: { events: { "turn.completed": () => {} } } },
    schedules: { nightly: { cron: "0 3 * * *", markdown: "Summarize the night's builds." } },
    subagents: { fixer: { description: "Fixes builds", instructions: "Fix the build." } },
    artifacts: { kinds: { report: { description: "A CI report" } } },
    seeds: { "ci/README.md": "How CI works here" },
    hosting: { egressDomains: ["api.ci.example"], secretNames: ["CI_TOKEN"] },
  }),
});
`;

describe("extensions", () => {
  it("mount every contribution as <ns>__<name> and list them in info", async () => {
    const dir = project({
      "bot/lib/ci.ts": CI_LIB,
      "bot/extensions/ci.ts": `import { ci } from "../lib/ci.ts";\nexport default ci({ org: "acme" });\n`,
      "bot/extensions/notes.ts": `import { defineExtension } from "@cursor/bdk/extensions";\nexport default defineExtension({ tools: { add: { description: "Adds a note", execute: () => "ok" } }, bogus: 1 });\n`,
    });
    const loaded = await loadProject(dir);
    expect(summarizeDiagnostics(loaded.diagnostics)).toEqual(["warning:unknown_key:bot/extensions/notes.ts"]);
    expect(Object.keys(loaded.tools ?? {}).sort()).toEqual(["ci__status", "notes__add"]);
    expect(Object.keys(loaded.skills ?? {})).toEqual(["ci__triage"]);
    expect(loaded.skills?.ci__triage?.description).toBe("Triage a red build");
    expect(Object.keys(loaded.connections ?? {})).toEqual(["ci__docs"]);
    expect(Object.keys(loaded.hooks ?? {})).toEqual(["ci__audit"]);
    expect(Object.keys(loaded.schedules ?? {})).toEqual(["ci__nightly"]);
    expect(Object.keys(loaded.subagents ?? {})).toEqual(["ci__fixer"]);
    expect(Object.keys(loaded.artifacts?.kinds ?? {})).toEqual(["ci__report"]);
    expect(loaded.seedFiles).toEqual({ "ci/ci/README.md": "How CI works here" });
    expect(loaded.instructions).toContain("## CI (extension ci)\n\nCheck CI with ci__status before answering about builds.");

    const info = JSON.parse((await run(["info", dir, "--json"], { env })).stdout) as { projects: Array<{ extensions: unknown[] }> };
    expect(info.projects[0]!.extensions).toEqual([
      {
        namespace: "ci",
        name: "CI",
        description: "Build status for acme",
        tools: ["ci__status"],
        skills: ["ci__triage"],
        connections: ["ci__docs"],
        hooks: ["ci__audit"],
        channels: [],
        schedules: ["ci__nightly"],
        subagents: ["ci__fixer"],
        artifactKinds: ["ci__report"],
        seeds: ["ci/ci/README.md"],
        egressDomains: ["api.ci.example"],
        secretNames: ["CI_TOKEN"],
      },
      expect.objectContaining({ namespace: "notes", tools: ["notes__add"] }),
    ]);

    const host = createHost({ agents: [{ slug: "x", project: loaded, storage: createMemoryStorage() }], logger: quietLogger, drainTimeoutMs: 50 });
    try {
      const called = await host.request("/x/v1/tools/ci__status", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ input: { repo: "web" } }) });
      expect(await called.json()).toMatchObject({ ok: true, isError: false, result: { org: "acme", repo: "web", status: "green" } });
      const served = (await (await host.request("/x/v1/info")).json()) as { extensions: Array<{ namespace: string }> };
      expect(served.extensions.map((e) => e.namespace)).toEqual(["ci", "notes"]);
    } finally {
      await host.close();
    }
  });

  it("an extension and a channel importing define* from the root entry load, validate and run (issue 34)", async () => {
    const dir = project({
      "bot/extensions/stopwatch.ts": `import { defineExtension } from "agent-serve";

export default defineExtension({
  tools: {
    start: { description: "Starts a stopwatch", execute: () => ({ started: true }) },
  },
});
`,
      "bot/channels/pings.ts": `import { defineChannel } from "@cursor/bdk";
import { GET } from "@cursor/bdk/channels";
import { z } from "zod";

export default defineChannel({ routes: [GET("/ping", { querySchema: z.object({}), handler: () => ({ pong: true }) })] });
`,
    });
    const validate = await run(["validate", dir], { env });
    expect(validate.stdout).toMatch(/ok: 1 project, 0 errors, 1 warning\n$/);
    expect(validate.code).toBe(0);
    expect(validate.stdout).toContain("channel pings: GET");
    const called = await run(["call", "stopwatch__start", "--json"], { env, cwd: dir });
    expect(JSON.parse(called.stdout)).toMatchObject({ ok: true, isError: false, result: { started: true } });
  });

  it("a bad config fails validate, naming the extension and the field", async () => {
    const dir = project({
      "bot/lib/ci.ts": CI_LIB,
      "bot/extensions/ci.ts": `import { ci } from "../lib/ci.ts";\nexport default ci({ org: "" } as never);\n`,
      "bot/extensions/bad__ns.ts": `export default {};\n`,
    });
    const result = await run(["validate", dir], { env });
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/error \[invalid_extension_config\] .*bot\/extensions\/ci\.ts: extension ci: invalid config: org: Invalid length/);
    expect(result.stdout).toMatch(/error \[invalid_extension_namespace\] .*bot\/extensions\/bad__ns\.ts/);
  });
});
